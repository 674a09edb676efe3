/**
 * An answer's markdown while it streams, drawn at the cost of its last paragraph.
 *
 * pi-tui's Markdown lexes and wraps its whole text whenever the text changed, and a streaming
 * answer changes at every delta: drawn once per frame (and once more per keystroke echoed),
 * a 10,000-character answer was lexed ~60 times a second, the cost growing with the answer.
 * Here the text is cut, as it arrives, after each blank line outside a fenced code block:
 * everything before such a cut is a settled part (drawn once per width, then cached), and
 * only the open tail is lexed again. How pi-tui ends a block depends on whether another block
 * follows (a heading or a code block gets an empty line after it only then), so a part is
 * drawn with a one-letter paragraph after it, whose line is then dropped: the part ends as
 * it does inside the whole text. Blank lines right after a cut are left out of the tail, the
 * part's last line stands for them.
 *
 * A cut can still differ from the whole in rare markdown (a list whose items are separated
 * by blank lines becomes several lists, an indented code block with a blank line in it two
 * blocks), so `finish()` puts the whole text back into one Markdown: a finished answer is
 * drawn exactly as pi-tui draws it, and lexed once more, not per frame.
 */
import type { Component, Markdown, MarkdownTheme } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** The paragraph drawn after a settled part, so that the part is drawn as followed by a block. */
const NEXT_BLOCK = "x";

/** A settled part: its lines once per width, as they are with more text after it, or as the end. */
class SettledPart {
  readonly #followed: Markdown;
  readonly #alone: Markdown;
  #drawn: { width: number; lines: string[] } | undefined;

  constructor(followed: Markdown, alone: Markdown) {
    this.#followed = followed;
    this.#alone = alone;
  }

  render(width: number): string[] {
    if (this.#drawn?.width === width) return this.#drawn.lines;
    const lines = this.#followed.render(width);
    // The last line is the added paragraph's; where it is not (a markdown shape it joined), the part alone.
    const drawn = lines.at(-1)?.trimEnd() === NEXT_BLOCK ? lines.slice(0, -1) : this.#alone.render(width);
    this.#drawn = { width, lines: drawn };
    return drawn;
  }

  /** The part as the last thing of the text (no text after the cut yet). */
  renderAsEnd(width: number): string[] {
    return this.#alone.render(width);
  }

  invalidate(): void {
    this.#drawn = undefined;
    this.#followed.invalidate();
    this.#alone.invalidate();
  }
}

export class StreamingMarkdown implements Component {
  readonly #theme: MarkdownTheme;
  #text = "";
  /** Where the next line to look at starts. */
  #scanFrom = 0;
  /** How much of the text the settled parts hold. */
  #settled = 0;
  #fence: { char: string; length: number } | undefined;
  readonly #parts: SettledPart[] = [];
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
    const tail = this.#tail.render(width);
    const last = this.#parts.length - 1;
    // Nothing after the last cut yet: that part is drawn as the end of the text.
    const settled = tail.length === 0 && last >= 0 ? last : this.#parts.length;
    if (this.#partsDrawn?.width !== width || this.#partsDrawn.count > settled) this.#partsDrawn = { width, lines: [], count: 0 };
    const drawn = this.#partsDrawn;
    for (; drawn.count < settled; drawn.count++) for (const line of this.#parts[drawn.count]!.render(width)) drawn.lines.push(line);
    if (settled === this.#parts.length) return tail.length === 0 ? drawn.lines : drawn.lines.concat(tail);
    return drawn.lines.concat(this.#parts[last]!.renderAsEnd(width));
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
        this.#parts.push(new SettledPart(this.#markdown(`${pending}${NEXT_BLOCK}`), this.#markdown(pending)));
      } else if (this.#parts.length === 0) continue;
      // Blank lines after a part are drawn by the part's own last line.
      this.#settled = this.#scanFrom;
    }
  }
}
