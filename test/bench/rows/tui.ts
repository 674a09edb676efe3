// Row 17: the terminal UI of `penguin chat`, in a real pseudo-terminal (@lydell/node-pty,
// loaded from apps/cli where it is a dev dependency). Three figures:
// - start to a ready prompt: spawn → the first frame on the terminal (the editor takes keys;
//   its status line says the session is opening: the chat draws the prompt first and opens
//   the session behind it), beside the same pty running `node -e 0` to its exit (alternated,
//   so load hits both alike);
// - start to the open session: spawn → the status line's "● ready" (banner drawn, a line
//   typed earlier is sent from here), beside the same `node -e 0`;
// - keystroke to echo while an answer streams N deltas (10,000; --quick 2,000): the testkit
//   streams one character per SSE event with a 1 ms pause, and a letter is typed each time
//   the previous one was drawn; the latency is write → the editor's line with that letter
//   in the terminal's output. Answers are words of digits in paragraphs, typed keys letters,
//   so they cannot be confused.
//   The note gives the 1-minute load at the stream's start and end and this process's own
//   CPU during it (it hosts the testkit's streamer and reads the pty). On two shared cores the
//   slow echoes are time the CLI spends descheduled or waiting for the key, not drawing: in one
//   run profiled with --cpu-prof, the chat's code ran for ~6% of the echoes over 8 ms. So p99
//   follows the load; compare two builds back to back (PENGUIN_BENCH_CLI), not across runs.
// Needs the bundled CLI (`npm run build`), like rows 1 and 2.
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { IPty, IPtyForkOptions } from "@lydell/node-pty";
import { startTestkit } from "@penguin/testkit";
import { metric, msSince, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";
import { CLI_MAIN, cliBuilt } from "./cli.js";

const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007|\u001b_[^\u0007]*\u0007|\u001b[@-Z\\-_]/g;
const READY = "● ready";
/** The status line of the first frame, before the session is open (apps/cli/src/tui/status-line.ts). */
const PROMPT = "◌ opening the session";

type Spawn = (file: string, args: string[], options: IPtyForkOptions) => IPty;

function loadPty(): Spawn {
  const require = createRequire(fileURLToPath(new URL("../../../apps/cli/package.json", import.meta.url)));
  const pty: { spawn: Spawn } = require("@lydell/node-pty");
  return pty.spawn;
}

interface PtyRun {
  child: IPty;
  /** Output so far, ANSI stripped. */
  text(): string;
  /** Resolves when `test` holds for the output after `from` (a text() length). */
  until(test: (rest: string) => boolean, from?: number): Promise<void>;
  exited: Promise<void>;
}

function runInPty(spawn: Spawn, args: string[], env: NodeJS.ProcessEnv, cwd: string): PtyRun {
  const child = spawn(process.execPath, args, { name: "xterm-256color", cols: 120, rows: 40, cwd, env });
  // Stripped chunk by chunk: re-stripping the whole output at each chunk would cost the
  // measuring process time quadratic in the output and starve the CLI it measures.
  let plain = "";
  const waiters = new Set<() => void>();
  child.onData((d) => {
    plain += d.replace(ANSI, "");
    for (const w of [...waiters]) w();
  });
  const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
  const text = (): string => plain;
  return {
    child,
    text,
    exited,
    until: (test, from = 0) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (test(text().slice(from))) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        void exited.then(() => {
          if (waiters.delete(check)) reject(new Error(`the child exited before the wait was met; output:\n${text().slice(-2000)}`));
        });
        check();
      }),
  };
}

export async function rowTui(runs: number, deltas: number): Promise<RowResult> {
  const title = "terminal UI: `penguin chat` to a ready prompt; keystroke to echo while an answer streams";
  if (!cliBuilt()) return { row: 17, title, metrics: [], note: "n/a (CLI not built: run `npm run build`)" };
  const spawn = loadPty();
  // Words of digits, a paragraph break every 600 characters: prose's shape (a single 10k-character
  // word would measure pi-tui's wrapping of one unbreakable word, ~120 ms a frame, not a chat).
  const answer = Array.from({ length: deltas }, (_, i) => (i % 600 === 599 ? "\n" : i % 600 === 598 ? "\n" : i % 6 === 5 ? " " : String(i % 10))).join("");
  const kit = await startTestkit({ script: [] });
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  try {
    const prompt: number[] = [];
    const ready: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i <= runs; i++) {
      let start = process.hrtime.bigint();
      const node = runInPty(spawn, ["-e", "0"], world.env, world.workspace);
      await node.exited;
      const bareMs = msSince(start);
      start = process.hrtime.bigint();
      const chat = runInPty(spawn, [CLI_MAIN, "chat", "--workspace", world.workspace], world.env, world.workspace);
      // A build that opens the session before drawing (PENGUIN_BENCH_CLI) shows "● ready" first.
      await chat.until((t) => t.includes(PROMPT) || t.includes(READY));
      const promptMs = msSince(start);
      await chat.until((t) => t.includes(READY));
      const readyMs = msSince(start);
      // Left as a user leaves it, so the chat writes its code cache as in daily use (a killed
      // process never does, and every start would compile the CLI afresh).
      chat.child.write("/exit\r");
      await chat.exited;
      // The first pair warms the disk cache and the CLI's code cache.
      if (i > 0) {
        bare.push(bareMs);
        prompt.push(promptMs);
        ready.push(readyMs);
      }
    }

    kit.enqueue({ text: answer, chunkSize: 1, delayMs: 1 });
    const chat = runInPty(spawn, [CLI_MAIN, "chat", "--workspace", world.workspace], world.env, world.workspace);
    await chat.until((t) => t.includes(READY));
    const asked = chat.text().length;
    const loadBefore = loadavg()[0]!;
    const ownCpu = process.cpuUsage();
    const streamStart = process.hrtime.bigint();
    chat.child.write("count\r");
    await chat.until((t) => /(\d+ ){4}/.test(t), asked);
    const echoes: number[] = [];
    const letters = "abcdefghijklmnopqrstuvwxy";
    // Lines as a person types them while reading: "ZQ" then words of letters, cleared with
    // Ctrl-U after 60 characters. "Z" appears nowhere else on the screen, so a line's tail is
    // found only once that keystroke is drawn. Spaces are typed but not timed (the editor pads
    // its line with spaces, so a space's echo cannot be told from the padding).
    let line = "";
    let streaming = true;
    // Ends the typing when the answer has ended; the child is killed after at most 5,000 samples.
    chat.until((t) => t.includes("[stats]"), asked).then(
      () => (streaming = false),
      () => (streaming = false),
    );
    while (streaming && echoes.length < 5000) {
      if (line.length >= 60) {
        chat.child.write("\u0015");
        line = "";
      }
      const key = line.length === 0 ? "Z" : line.length === 1 ? "Q" : line.length % 6 === 5 ? " " : letters[echoes.length % letters.length]!;
      line += key;
      const from = chat.text().length;
      const start = process.hrtime.bigint();
      chat.child.write(key);
      if (key === " ") continue;
      const tail = line.slice(-8);
      await chat.until((t) => t.includes(tail), from);
      if (streaming) echoes.push(msSince(start));
    }
    const streamMs = msSince(streamStart);
    const { user, system } = process.cpuUsage(ownCpu);
    const loadAfter = loadavg()[0]!;
    chat.child.kill();
    await chat.exited;
    const overFrame = echoes.filter((ms) => ms > 16).length;
    const note =
      `${echoes.length} keystrokes echoed while an answer of ${deltas.toLocaleString("en-US")} deltas streamed, ` +
      `${overFrame} over 16 ms; load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}, ` +
      `the measuring process (streamer + pty reader) used ${Math.round((user + system) / 1000)} ms CPU in ${Math.round(streamMs)} ms`;
    return {
      row: 17,
      title,
      note,
      metrics: [
        metric("penguin chat → ready prompt (editor takes keys)", "ms", "lower", prompt, { baseline: { name: "node -e 0 (same pty)", samples: bare }, goal: "≤ 2× node -e 0" }),
        metric("penguin chat → session open (● ready)", "ms", "lower", ready, { baseline: { name: "node -e 0 (same pty)", samples: bare } }),
        metric(`keystroke → echo while streaming (p50 of ${echoes.length})`, "ms", "lower", [percentile(echoes, 0.5)]),
        metric(`keystroke → echo while streaming (p99 of ${echoes.length})`, "ms", "lower", [percentile(echoes, 0.99)], { goal: "≤ 16 ms" }),
      ],
    };
  } finally {
    world.cleanup();
    await kit.close();
  }
}

function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
