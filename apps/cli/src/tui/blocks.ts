/**
 * The blocks the transcript is made of, as pi-tui components (each renders itself to lines of
 * at most `width` columns, so a narrow terminal wraps instead of breaking the screen):
 *
 * - `LinesBlock`: lines of text (the user's message, notes, command output), wrapped, each line
 *   once per width (every frame draws the whole transcript);
 * - `ToolBlock`: one tool call, updated in place: `⠋ [tool-001] exec_command <- $ cmd · running 1.2s`,
 *   then `✓ … · exit 0 · 0.3s` (or `✗`, denied, forbidden); a write's or edit's diff under it;
 *   its output collapsed to the last OUTPUT_TAIL lines with a hint that Ctrl-O expands every
 *   block (`expanded` is shared by all blocks of the chat).
 *
 * Text that came from the model or a tool goes through `sanitizeForTerminal` before it is
 * painted.
 */
import type { Component } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";
import type { Colors } from "../io/colors.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { duration } from "../render/format.js";
import { toolCallLine } from "../render/tool-line.js";
import { paintDiff, type DiffLine } from "./diff-view.js";

export const OUTPUT_TAIL = 4;
export const DIFF_HEAD = 12;
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export function spinnerFrame(now: number): string {
  return SPINNER[Math.floor(now / 80) % SPINNER.length]!;
}

function wrapLine(line: string, width: number): string[] {
  if (line === "") return [""];
  const { truncateToWidth, wrapTextWithAnsi } = piTui();
  return wrapTextWithAnsi(line, Math.max(1, width)).map((w) => truncateToWidth(w, width, ""));
}

function wrap(lines: readonly string[], width: number): string[] {
  return lines.flatMap((line) => wrapLine(line, width));
}

/**
 * Lines wrapped to the width. Every frame draws the whole transcript, so each line keeps its
 * wrapping until it changes (or the width does): a block that grows (a streaming thought,
 * command output) re-wraps only its changed lines.
 */
export class LinesBlock implements Component {
  #lines: string[];
  #width = -1;
  #wrapped: Array<{ source: string; lines: string[] }> = [];
  #drawn: string[] | undefined;
  constructor(lines: string[]) {
    this.#lines = lines;
  }
  set(lines: string[]): void {
    this.#lines = lines;
    this.#drawn = undefined;
  }
  render(width: number): string[] {
    if (width !== this.#width) {
      this.#width = width;
      this.#wrapped = [];
      this.#drawn = undefined;
    }
    if (this.#drawn !== undefined) return this.#drawn;
    const out: string[] = [];
    this.#lines.forEach((source, i) => {
      let entry = this.#wrapped[i];
      if (entry?.source !== source) this.#wrapped[i] = entry = { source, lines: wrapLine(source, width) };
      for (const l of entry.lines) out.push(l);
    });
    this.#wrapped.length = this.#lines.length;
    this.#drawn = out;
    return out;
  }
  invalidate(): void {
    this.#width = -1;
  }
}

export interface ExpandState {
  expanded: boolean;
}

type ToolStatus = { kind: "asking" } | { kind: "running" } | { kind: "done"; ok: boolean; label: string; ms: number };

export class ToolBlock implements Component {
  readonly #c: Colors;
  readonly #expand: ExpandState;
  #started = performance.now();
  readonly #header: { tag: string; name: string; summary: string };
  /** write_file / edit_file: their output is a unified diff, painted as one. */
  readonly #diffOutput: boolean;
  #diff: DiffLine[] | undefined;
  #status: ToolStatus = { kind: "running" };
  #output: string[] = [];
  #drawn: { key: string; lines: string[] } | undefined;

  constructor(call: { name: string; arguments: string; tool_call_id: string }, c: Colors, expand: ExpandState, diff: DiffLine[] | undefined) {
    this.#c = c;
    this.#expand = expand;
    this.#header = toolCallLine(call.name, call.arguments, call.tool_call_id);
    this.#diff = diff;
    this.#diffOutput = diff !== undefined;
  }

  get running(): boolean {
    return this.#status.kind !== "done";
  }

  /** The call waits for the user's answer; `allowed` starts its clock. */
  asking(): void {
    if (this.#status.kind === "running") this.#status = { kind: "asking" };
  }

  allowed(): void {
    if (this.#status.kind !== "asking") return;
    this.#status = { kind: "running" };
    this.#started = performance.now();
  }

  /** The call was refused before it ran (denied, forbidden): its output is the reason. */
  refuse(label: string): void {
    this.#drawn = undefined;
    this.#status = { kind: "done", ok: false, label, ms: performance.now() - this.#started };
  }

  finish(output: string, stopReason: string | undefined): void {
    this.#drawn = undefined;
    const ms = performance.now() - this.#started;
    const text = sanitizeForTerminal(output).replace(/\s+$/, "");
    const exit = /\[exit code: (-?\d+)\]\s*$/.exec(text);
    this.#output = (exit === null ? text : text.slice(0, exit.index).replace(/\s+$/, "")).split("\n").filter((l, i, all) => !(all.length === 1 && l === ""));
    if (this.#status.kind === "done") return; // refused: keep the label, show the reason as output
    // The tool's own diff of what it did replaces the predicted one.
    if (this.#diffOutput && this.#output.some((l) => l.startsWith("@@"))) this.#diff = undefined;
    if (exit !== null) this.#status = { kind: "done", ok: exit[1] === "0", label: `exit ${exit[1]}`, ms };
    else if (stopReason !== undefined && stopReason !== "completed") this.#status = { kind: "done", ok: false, label: stopReason, ms };
    else this.#status = { kind: "done", ok: true, label: "done", ms };
  }

  render(width: number): string[] {
    // A finished block changes only with the width or Ctrl-O; a running one shows its clock.
    const key = `${width}:${this.#expand.expanded}`;
    if (this.#status.kind === "done" && this.#drawn?.key === key) return this.#drawn.lines;
    const lines = this.#draw(width);
    this.#drawn = this.#status.kind === "done" ? { key, lines } : undefined;
    return lines;
  }

  #draw(width: number): string[] {
    const c = this.#c;
    const { tag, name, summary } = this.#header;
    const s = this.#status;
    const mark = s.kind === "asking" ? c.yellow("?") : s.kind === "running" ? c.cyan(spinnerFrame(performance.now())) : s.ok ? c.green("✓") : c.red("✗");
    const state =
      s.kind === "asking" ? c.yellow("waiting for approval") : s.kind === "running" ? c.dim(`running ${duration(performance.now() - this.#started)}`) : (s.ok ? c.green : c.red)(`${s.label} · ${duration(s.ms)}`);
    const lines = [`${mark} ${c.cyan(tag)} ${c.bold(name)} <- ${sanitizeForTerminal(summary)} · ${state}`];
    if (this.#diff !== undefined && this.#diff.length > 0) {
      const painted = paintDiff(this.#diff, c);
      const shown = this.#expand.expanded ? painted : painted.slice(0, DIFF_HEAD);
      for (const l of shown) lines.push(`    ${l}`);
      if (shown.length < painted.length) lines.push(c.dim(`    … ${painted.length - shown.length} more diff lines (ctrl+o to expand)`));
    }
    if (this.#output.length > 0) {
      const hidden = this.#expand.expanded ? 0 : Math.max(0, this.#output.length - OUTPUT_TAIL);
      if (hidden > 0) lines.push(c.dim(`    … ${hidden} earlier line${hidden === 1 ? "" : "s"} (ctrl+o to expand)`));
      for (const l of this.#output.slice(hidden)) lines.push(`    ${c.dim("│")} ${this.#paintOutput(l)}`);
    }
    return wrap(lines, width);
  }

  #paintOutput(line: string): string {
    if (!this.#diffOutput || line.startsWith("+++") || line.startsWith("---")) return line;
    if (line.startsWith("+")) return this.#c.green(line);
    if (line.startsWith("-")) return this.#c.red(line);
    if (line.startsWith("@@")) return this.#c.cyan(line);
    return line;
  }

  invalidate(): void {
    this.#drawn = undefined;
  }
}
