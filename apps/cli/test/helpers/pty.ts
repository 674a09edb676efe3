// The built CLI in a real pseudo-terminal (@lydell/node-pty, prebuilt), for what only a
// terminal has: readline's raw mode, Ctrl-C as a keystroke, prompts. Waits are on output
// (a pattern appearing after a mark), never on the clock; ANSI codes are stripped for
// matching, since readline draws with them even when colours are off.
import { spawn, type IPty } from "@lydell/node-pty";
import { CLI_MAIN } from "./paths.js";

const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

export interface PtyCli {
  /** Everything printed so far, ANSI stripped. */
  text(): string;
  /** Everything printed so far, as the terminal received it. */
  raw(): string;
  write(data: string): void;
  /** Resolves when `pattern` appears in the output printed after `from` (default: the mark). */
  waitFor(pattern: string | RegExp, from?: number): Promise<void>;
  /** Sets the mark to the current end of output and returns it. */
  mark(): number;
  exit: Promise<{ exitCode: number; signal?: number }>;
  kill(): void;
}

export function spawnPty(args: string[], env: NodeJS.ProcessEnv, cwd?: string): PtyCli {
  const child: IPty = spawn(process.execPath, [CLI_MAIN, ...args], { name: "xterm-256color", cols: 160, rows: 50, cwd: cwd ?? process.cwd(), env });
  let raw = "";
  let markAt = 0;
  const listeners = new Set<() => void>();
  child.onData((data) => {
    raw += data;
    for (const l of [...listeners]) l();
  });
  const exit = new Promise<{ exitCode: number; signal?: number }>((resolve) => {
    child.onExit((e) => {
      for (const l of [...listeners]) l();
      resolve(e);
    });
  });
  let exited = false;
  void exit.then(() => (exited = true));
  const text = (): string => stripAnsi(raw);
  return {
    text,
    raw: () => raw,
    write: (data) => child.write(data),
    mark() {
      markAt = text().length;
      return markAt;
    },
    waitFor(pattern, from = markAt) {
      const found = (): boolean => {
        const rest = text().slice(from);
        return typeof pattern === "string" ? rest.includes(pattern) : pattern.test(rest);
      };
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (found()) {
            listeners.delete(check);
            resolve();
          } else if (exited) {
            listeners.delete(check);
            reject(new Error(`the CLI exited before printing ${String(pattern)}; output:\n${text()}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    exit,
    kill: () => {
      if (!exited) child.kill();
    },
  };
}
