// The built CLI in a real pseudo-terminal whose output is rendered by a terminal emulator
// (@xterm/headless), for the terminal UI: tests assert on the screen as a person sees it (the
// rows of the viewport, after cursor moves and redraws), not on the byte stream. Replies the
// emulator gives to the program's queries (cursor position, device attributes) go back to it,
// as a real terminal's would. Waits are on screen states (checked after each chunk the
// emulator has parsed), never on the clock. `save` writes the screen to
// test-artifacts/tui-screens/NAME.txt, which CI keeps.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn, type IPty } from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { CLI_MAIN, REPO } from "./paths.js";

export const SCREENS_DIR = join(REPO, "test-artifacts", "tui-screens");

export interface ScreenCli {
  /** The visible rows, right-trimmed, joined by newlines. */
  screen(): string;
  /** Every row written so far (scrollback and viewport). */
  all(): string;
  /** Everything the CLI wrote, as the terminal received it (escape codes included). */
  raw(): string;
  write(data: string): void;
  /** Resolves when `test(all rows)` holds; rejects if the CLI exits first. */
  waitFor(test: string | RegExp | ((all: string) => boolean), what?: string): Promise<void>;
  resize(cols: number, rows: number): void;
  save(name: string): string;
  exit: Promise<{ exitCode: number }>;
  kill(): void;
}

export function spawnScreen(args: string[], env: NodeJS.ProcessEnv, size = { cols: 120, rows: 40 }): ScreenCli {
  const term = new xterm.Terminal({ cols: size.cols, rows: size.rows, scrollback: 5000, allowProposedApi: true });
  const child: IPty = spawn(process.execPath, [CLI_MAIN, ...args], { name: "xterm-256color", cols: size.cols, rows: size.rows, cwd: REPO, env });
  const listeners = new Set<() => void>();
  let exited = false;
  let raw = "";
  const notify = (): void => {
    for (const l of [...listeners]) l();
  };
  child.onData((data) => {
    raw += data;
    term.write(data, notify);
  });
  term.onData((reply) => {
    if (!exited) child.write(reply);
  });
  const exit = new Promise<{ exitCode: number }>((resolve) => {
    child.onExit((e) => {
      exited = true;
      // Let the emulator finish parsing what was written before the exit.
      term.write("", () => {
        notify();
        resolve({ exitCode: e.exitCode });
      });
    });
  });
  const rows = (from: number, to: number): string => {
    const buffer = term.buffer.active;
    const out: string[] = [];
    for (let y = from; y < to; y++) out.push(buffer.getLine(y)?.translateToString(true) ?? "");
    return out.join("\n");
  };
  const screen = (): string => rows(term.buffer.active.viewportY, term.buffer.active.viewportY + term.rows);
  const all = (): string => rows(0, term.buffer.active.length);
  return {
    screen,
    all,
    raw: () => raw,
    write: (data) => child.write(data),
    waitFor(test, what) {
      const holds = (): boolean => {
        const text = all();
        return typeof test === "string" ? text.includes(test) : test instanceof RegExp ? test.test(text) : test(text);
      };
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (holds()) {
            listeners.delete(check);
            resolve();
          } else if (exited) {
            listeners.delete(check);
            reject(new Error(`the CLI exited before the screen showed ${what ?? String(test)}; screen:\n${screen()}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    resize(cols, r) {
      term.resize(cols, r);
      child.resize(cols, r);
    },
    save(name) {
      mkdirSync(SCREENS_DIR, { recursive: true });
      const file = join(SCREENS_DIR, `${name}.txt`);
      writeFileSync(file, `${screen()}\n`);
      return file;
    },
    exit,
    kill: () => {
      if (!exited) child.kill();
    },
  };
}
