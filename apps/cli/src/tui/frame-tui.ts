/**
 * The chat's pi-tui TUI, with two things pi-tui 0.73 does not offer publicly:
 *
 * - `renderNow()` draws the pending frame at once. pi-tui draws on a clock (at most one frame
 *   per 16 ms); a keystroke's echo should not wait behind that clock while a streaming answer
 *   keeps it busy, and `stop()` drops a frame still waiting, so a task's last lines would be
 *   lost on exit. The only public way to draw, `requestRender(true)`, is a full redraw on the
 *   next tick, so this small subclass calls the private `doRender` (the one place that does).
 *   Its presence is checked when the UI is built, so a pi-tui upgrade that renames it fails at
 *   start instead of quietly echoing keys a frame late.
 * - `FrameTerminal` sends each frame to the terminal as one write. pi-tui writes a frame in
 *   several pieces (the changed lines, the cursor move, hide-cursor); to a pseudo-terminal
 *   each is a system call, which under load costs more than drawing the frame. Writes are
 *   gathered and flushed once the frame's synchronous code is done (a microtask), and before
 *   anything that must follow them (stop, raw terminal calls).
 */
import type * as PiTui from "@mariozechner/pi-tui";
import type { Terminal, TUI } from "@mariozechner/pi-tui";

export interface ChatTui extends TUI {
  /** Draws the pending changes now (a differential frame, like the clock's). */
  renderNow(): void;
}

const HIDE_CURSOR = "\u001b[?25l";
const SHOW_CURSOR = "\u001b[?25h";

export class FrameTerminal implements Terminal {
  readonly #inner: Terminal;
  #pending = "";
  #flushQueued = false;
  #cursorHidden: boolean | undefined;

  constructor(inner: Terminal) {
    this.#inner = inner;
  }

  write(data: string): void {
    if (data === "") return;
    this.#pending += data;
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Sends what the frame wrote so far, as one write. */
  flush(): void {
    this.#flushQueued = false;
    if (this.#pending === "") return;
    const data = this.#pending;
    this.#pending = "";
    this.#inner.write(data);
  }

  // pi-tui hides the cursor after every frame; a cursor already hidden costs no bytes.
  hideCursor(): void {
    if (this.#cursorHidden === true) return;
    this.#cursorHidden = true;
    this.write(HIDE_CURSOR);
  }

  showCursor(): void {
    if (this.#cursorHidden === false) return;
    this.#cursorHidden = false;
    this.write(SHOW_CURSOR);
  }

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.flush();
    this.#inner.start(onInput, onResize);
  }

  stop(): void {
    this.flush();
    this.#inner.stop();
  }

  drainInput(maxMs?: number, idleMs?: number): Promise<void> {
    return this.#inner.drainInput(maxMs, idleMs);
  }

  get columns(): number {
    return this.#inner.columns;
  }

  get rows(): number {
    return this.#inner.rows;
  }

  get kittyProtocolActive(): boolean {
    return this.#inner.kittyProtocolActive;
  }

  moveBy(lines: number): void {
    this.flush();
    this.#inner.moveBy(lines);
  }

  clearLine(): void {
    this.flush();
    this.#inner.clearLine();
  }

  clearFromCursor(): void {
    this.flush();
    this.#inner.clearFromCursor();
  }

  clearScreen(): void {
    this.flush();
    this.#inner.clearScreen();
  }

  setTitle(title: string): void {
    this.flush();
    this.#inner.setTitle(title);
  }

  setProgress(active: boolean): void {
    this.flush();
    this.#inner.setProgress(active);
  }
}

/** A TUI over `terminal` (frames gathered by a FrameTerminal) that can draw at once. */
export function chatTui(pi: typeof PiTui, terminal: Terminal): ChatTui {
  const frames = new FrameTerminal(terminal);
  class ImmediateTui extends pi.TUI implements ChatTui {
    renderNow(): void {
      const draw: unknown = Reflect.get(this, "doRender");
      if (typeof draw === "function") draw.call(this);
      frames.flush();
    }
  }
  const tui = new ImmediateTui(frames);
  if (typeof Reflect.get(tui, "doRender") !== "function") throw new Error("this pi-tui has no doRender: the chat's immediate echo (tui/frame-tui.ts) needs updating for it");
  return tui;
}
