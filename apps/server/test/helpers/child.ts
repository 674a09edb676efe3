// Running the server as a real child process (src/main.ts through tsx, resolving workspace
// packages to their sources), reading its stdout line by line and waiting for lines by
// content, so tests can kill it with real signals.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

export interface ServerChild {
  proc: ChildProcess;
  out: string[];
  err: string[];
  /** Resolves with the first stdout line matching, or rejects when the process exits first. */
  line(re: RegExp): Promise<string>;
  exited: Promise<number | null>;
  url(): Promise<string>;
}

export function spawnServer(args: string[], env: NodeJS.ProcessEnv = {}): ServerChild {
  const proc = spawn(process.execPath, ["--conditions=development", "--import", "tsx", MAIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: string[] = [];
  const err: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code, signal) => {
      exitCode = code ?? (signal === null ? null : -1);
      for (const w of waiters.splice(0)) w.reject(new Error(`server exited (${code ?? signal}) before printing ${w.re}; stdout:\n${out.join("\n")}\nstderr:\n${err.join("\n")}`));
      resolve(code);
    }),
  );
  const feed = (sink: string[], check: boolean) => {
    let partial = "";
    return (chunk: Buffer) => {
      partial += chunk.toString("utf8");
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines) {
        sink.push(l);
        if (!check) continue;
        for (const w of [...waiters]) {
          if (w.re.test(l)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(l);
          }
        }
      }
    };
  };
  proc.stdout?.on("data", feed(out, true));
  proc.stderr?.on("data", feed(err, false));
  const line = (re: RegExp) => {
    const hit = out.find((l) => re.test(l));
    if (hit !== undefined) return Promise.resolve(hit);
    if (exitCode !== undefined) return Promise.reject(new Error(`server already exited; stdout:\n${out.join("\n")}\nstderr:\n${err.join("\n")}`));
    return new Promise<string>((resolve, reject) => waiters.push({ re, resolve, reject }));
  };
  return {
    proc,
    out,
    err,
    line,
    exited,
    async url() {
      const l = await line(/https?:\/\/[^\s│]+/);
      return /https?:\/\/[^\s│]+/.exec(l)?.[0] ?? "";
    },
  };
}

/**
 * What one test file starts: server children and temporary folders, killed (SIGKILL where still
 * running) and removed after each test, so no test leaves a server behind.
 */
export class StartedServers {
  readonly #children: ServerChild[] = [];
  readonly #dirs: string[] = [];

  track(child: ServerChild): ServerChild {
    this.#children.push(child);
    return child;
  }

  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.#dirs.push(dir);
    return dir;
  }

  async cleanup(): Promise<void> {
    for (const c of this.#children.splice(0)) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
      await c.exited;
    }
    for (const d of this.#dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}
