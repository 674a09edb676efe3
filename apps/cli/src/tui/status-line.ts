/**
 * The status line under the transcript, one row, cut to the terminal's width:
 *
 *   ⠙ working 3.2s · tokens 12.3k in / 1.1k out · $0.0123 · context 9.8k/128k (8%) · approvals read-only · sandbox on
 *
 * The spinner and the elapsed time show only while a task runs; tokens and cost are the
 * session's so far (its `usage` and prices), context is the last request's size against the
 * model's window. What it reads comes from the chat through `StatusSource`, at each render.
 */
import type { Component } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";
import { costUsd } from "@penguin/models";
import type { Session } from "@penguin/core";
import type { Colors } from "../io/colors.js";
import { compactNumber, duration, usd } from "../render/format.js";
import { spinnerFrame } from "./blocks.js";

export interface StatusSource {
  session(): Session;
  /** performance.now() when the running task started; undefined when idle. */
  taskStarted(): number | undefined;
  /** What the spinner says: working, waiting for approval, interrupting… */
  activity(): string;
  mode(): string;
  sandboxed(): boolean;
}

export function contextText(session: Session): string {
  const window = session.contextWindow;
  const last = session.lastRequestUsage?.total;
  const used = last === undefined ? "?" : compactNumber(last);
  const pct = last !== undefined && window !== "unknown" && window > 0 ? ` (${Math.round((last / window) * 100)}%)` : "";
  return `context ${used}/${window === "unknown" ? "?" : compactNumber(window)}${pct}`;
}

export function usageText(session: Session): { tokens: string; cost: string } {
  const u = session.usage;
  return { tokens: `tokens ${compactNumber(u.cache_read + u.cache_write)} in / ${compactNumber(u.output)} out`, cost: usd(costUsd(u, session.pricing)) };
}

export class StatusLine implements Component {
  readonly #src: StatusSource;
  readonly #c: Colors;

  constructor(src: StatusSource, c: Colors) {
    this.#src = src;
    this.#c = c;
  }

  parts(): string[] {
    const c = this.#c;
    const s = this.#src.session();
    const started = this.#src.taskStarted();
    const { tokens, cost } = usageText(s);
    const parts: string[] = [];
    if (started !== undefined) parts.push(`${c.cyan(spinnerFrame(performance.now()))} ${this.#src.activity()} ${duration(performance.now() - started)}`);
    else parts.push(c.green("● ready"));
    parts.push(tokens, cost, contextText(s), `approvals ${this.#src.mode()}`, `sandbox ${this.#src.sandboxed() ? "on" : "off"}`);
    return parts;
  }

  /** One row; on a narrow terminal the parts flow onto as many rows as they need. */
  render(width: number): string[] {
    const { truncateToWidth, visibleWidth } = piTui();
    const sep = this.#c.dim(" · ");
    const rows: string[] = [];
    let row = "";
    for (const part of this.parts()) {
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
