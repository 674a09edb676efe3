/**
 * The status line under the transcript, one row, cut to the terminal's width:
 *
 *   ⠙ working 3.2s · tokens 12.3k in / 1.1k out · $0.0123 · context 9.8k/128k (8%) · approvals read-only · sandbox on
 *
 * The spinner and the elapsed time show only while a task runs, "● ready" otherwise. The
 * other parts (usage-text.ts, the approval mode, the sandbox) are the session's, given by the
 * chat through `StatusSource.details()` at each render; while the session is still opening
 * behind the first frame there are none, and the line says so.
 */
import type { Component } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";
import type { Colors } from "../io/colors.js";
import { duration } from "../render/format.js";
import { spinnerFrame } from "./blocks.js";

export interface StatusSource {
  /** performance.now() when the running task started; undefined when idle. */
  taskStarted(): number | undefined;
  /** What the spinner says: working, waiting for approval, interrupting… */
  activity(): string;
  /** Tokens, cost, context, approval mode, sandbox; undefined while the session opens. */
  details(): string[] | undefined;
}

export const OPENING = "◌ opening the session…";

/** The source of the first frame, before the session exists. */
export const openingStatus: StatusSource = { taskStarted: () => undefined, activity: () => "", details: () => undefined };

export class StatusLine implements Component {
  #src: StatusSource;
  readonly #c: Colors;
  #drawn: { key: string; rows: string[] } | undefined;

  constructor(src: StatusSource, c: Colors) {
    this.#src = src;
    this.#c = c;
  }

  setSource(src: StatusSource): void {
    this.#src = src;
  }

  parts(): string[] {
    const c = this.#c;
    const details = this.#src.details();
    if (details === undefined) return [c.dim(OPENING)];
    const started = this.#src.taskStarted();
    const head = started !== undefined ? `${c.cyan(spinnerFrame(performance.now()))} ${this.#src.activity()} ${duration(performance.now() - started)}` : c.green("● ready");
    return [head, ...details];
  }

  /**
   * One row; on a narrow terminal the parts flow onto as many rows as they need. Measured
   * again only when a part changed (the spinner turns every 80 ms, a keystroke's echo draws
   * the screen far more often).
   */
  render(width: number): string[] {
    const parts = this.parts();
    const key = `${width}\u0000${parts.join("\u0000")}`;
    if (this.#drawn?.key !== key) this.#drawn = { key, rows: this.#layout(parts, width) };
    return this.#drawn.rows;
  }

  #layout(parts: string[], width: number): string[] {
    const { truncateToWidth, visibleWidth } = piTui();
    const sep = this.#c.dim(" · ");
    const rows: string[] = [];
    let row = "";
    for (const part of parts) {
      const next = row === "" ? part : `${row}${sep}${part}`;
      if (row !== "" && visibleWidth(next) > width) {
        rows.push(row);
        row = part;
      } else row = next;
    }
    rows.push(row);
    return rows.map((r) => truncateToWidth(r, width));
  }

  invalidate(): void {}
}
