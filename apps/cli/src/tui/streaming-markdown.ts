/**
 * An answer's markdown while it streams, drawn at the cost of its last paragraph.
 *
 * pi-tui's Markdown lexes and wraps its whole text whenever the text changed, and a streaming
 * answer changes at every delta: drawn once per frame (and once more per keystroke echoed),
 * a 10,000-character answer was lexed ~60 times a second, the cost growing with the answer.
 * Here the text is cut, as it arrives, after each blank line outside a fenced code block:
 * everything before such a cut is a settled part (a Markdown drawn once per width, then
 * cached), and only the open tail is lexed again. A part ends with its blank line, so it
 * ends as the whole text would there (a `space` token, one empty line), and blank lines
 * right after a cut are left out of the tail for the same reason.
 *
 * A cut can still differ from the whole in rare markdown (a list whose items are separated
 * by blank lines becomes several lists, an indented code block with a blank line in it two
 * blocks), so `finish()` puts the whole text back into one Markdown: a finished answer is
 * drawn exactly as pi-tui draws it, and lexed once more, not per frame.
 */
import type { Component, Markdown, MarkdownTheme } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export class StreamingMarkdown implements Component {
  readonly #theme: MarkdownTheme;
  #text = "";
  /** Where the next line to look at starts. */
  #scanFrom = 0;
  /** How much of the text the settled parts hold. */
  #settled = 0;
  #fence: { char: string; length: number } | undefined;
  readonly #parts: Markdown[] = [];
  /** The settled parts' lines at one width, for the first `count` parts. */
  #partsDrawn: { width: number; lines: string[]; count: number } | undefined;
  #tail: Markdown;
  #whole: Markdown | undefined;

  constructor(theme: MarkdownTheme) {
    this.#theme = theme;
    this.#tail = this.#markdown("");
  }

  get text(): string {
    return this.#text;
  }

  append(delta: string): void {
    if (this.#whole !== undefined) throw new Error("StreamingMarkdown: append after finish");
    this.#text += delta;
    this.#cut();
    this.#tail.setText(this.#text.slice(this.#settled));
  }

  /** The answer is complete: from now on it is one Markdown of the whole text. */
  finish(): void {
    if (this.#whole !== undefined) return;
    this.#whole = this.#markdown(this.#text);
    this.#parts.length = 0;
    this.#partsDrawn = undefined;
  }

  render(width: number): string[] {
    if (this.#whole !== undefined) return this.#whole.render(width);
    if (this.#partsDrawn?.width !== width) this.#partsDrawn = { width, lines: [], count: 0 };
    const drawn = this.#partsDrawn;
    for (; drawn.count < this.#parts.length; drawn.count++) for (const line of this.#parts[drawn.count]!.render(width)) drawn.lines.push(line);
    const tail = this.#tail.render(width);
    return tail.length === 0 ? this.#partsDrawn.lines : this.#partsDrawn.lines.concat(tail);
  }

  invalidate(): void {
    this.#partsDrawn = undefined;
    for (const p of this.#parts) p.invalidate();
    this.#tail.invalidate();
    this.#whole?.invalidate();
  }

  #markdown(text: string): Markdown {
    return new (piTui().Markdown)(text, 0, 0, this.#theme);
  }

  /** Settles every complete paragraph of the text scanned so far. */
  #cut(): void {
    for (;;) {
      const end = this.#text.indexOf("\n", this.#scanFrom);
      if (end < 0) return;
      const line = this.#text.slice(this.#scanFrom, end);
      this.#scanFrom = end + 1;
      const fence = FENCE.exec(line)?.[1];
      if (this.#fence !== undefined) {
        if (fence !== undefined && fence[0] === this.#fence.char && fence.length >= this.#fence.length && line.trim() === fence) this.#fence = undefined;
        continue;
      }
      if (fence !== undefined) {
        this.#fence = { char: fence[0]!, length: fence.length };
        continue;
      }
      if (line.trim() !== "") continue;
      const pending = this.#text.slice(this.#settled, this.#scanFrom);
      if (pending.trim() !== "") {
        this.#parts.push(this.#markdown(pending));
      } else if (this.#parts.length === 0) continue;
      // Blank lines after a part are drawn by the part's own last line.
      this.#settled = this.#scanFrom;
    }
  }
}
