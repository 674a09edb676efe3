/**
 * `penguin chat` as a terminal UI (stdin and stdout both terminals), prompt first: the screen
 * is drawn, and takes keys, before the agent and the session are opened behind it. What opens
 * them is the chat command's (`open`); this file only orders the start:
 *
 * 1. pi-tui is loaded and the screen drawn with its status line saying the session is opening
 *    (early-prompt.ts); keys go to the editor at once. The bundle's loader may have drawn it
 *    before this script was even read (launch/chat-prompt.ts): then it is claimed, not redrawn.
 * 2. `open()` runs. Lines it writes to stderr (a sandbox warning) become transcript notes,
 *    not stray text across the drawn screen. Lines submitted meanwhile wait; Ctrl-C clears the
 *    line or asks, and a second one leaves once the session is open (it cannot be dropped
 *    half-opened: its lease is released by disposing it).
 * 3. The chat itself (chat-loop.ts, with the session logic's imports) takes over the screen,
 *    its banner and "● ready", and the early input.
 *
 * This module imports only what the first frame needs, so nothing of core or the models
 * package is evaluated before it is drawn. If opening fails the terminal is restored first
 * and the error goes on to the CLI, which prints it and exits 2 as before.
 */
import { claimEarlyPrompt, drawEarlyPrompt } from "./early-prompt.js";
import type { OpenedChat } from "./chat-loop.js";
import { loadPiTui } from "./pi-tui.js";
import type { Screen } from "./screen.js";

export type { OpenedChat } from "./chat-loop.js";

export async function runTuiChat(open: () => Promise<OpenedChat>): Promise<void> {
  // The loader may have drawn the prompt already (launch/chat-prompt.ts); pi-tui is then the
  // same module instance, loaded here for this bundle's own piTui().
  await loadPiTui();
  const { screen, theme, early, stopEarly } = claimEarlyPrompt() ?? (await drawEarlyPrompt());
  let opened: OpenedChat;
  try {
    opened = await withStderrAsNotes(screen, open);
  } catch (error) {
    screen.tui.renderNow();
    screen.tui.stop();
    throw error;
  }
  stopEarly();
  const { TuiChat } = await import("./chat-loop.js");
  const chat = new TuiChat(screen, theme, opened, early);
  try {
    await chat.run();
  } finally {
    // stop() drops a frame still waiting for the clock: the last lines are drawn first.
    screen.tui.renderNow();
    screen.tui.stop();
    const session = chat.session;
    await session.dispose();
    process.stdout.write(`penguin chat --resume ${session.id}\n`);
  }
}

/** Runs `fn` with whole lines written to stderr shown as notes in the transcript. */
async function withStderrAsNotes<T>(screen: Screen, fn: () => Promise<T>): Promise<T> {
  const stderr = process.stderr;
  const original = Object.getOwnPropertyDescriptor(stderr, "write");
  let partial = "";
  const asNotes = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    partial += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) screen.note(line);
    screen.tui.requestRender();
    const done = rest.find((r) => typeof r === "function");
    if (typeof done === "function") queueMicrotask(() => done());
    return true;
  };
  Object.defineProperty(stderr, "write", { value: asNotes, configurable: true, writable: true });
  try {
    return await fn();
  } finally {
    if (original === undefined) Reflect.deleteProperty(stderr, "write");
    else Object.defineProperty(stderr, "write", original);
    if (partial !== "") screen.note(partial);
  }
}
