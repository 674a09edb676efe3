/**
 * Streaming markdown, one block at a time. Model text arrives in small deltas but markdown
 * can only be rendered in whole blocks (a list, a fenced code block), so deltas are buffered
 * and a block is released once a blank line ends it outside a code fence. The terminal thus
 * shows formatted text paragraph by paragraph while the answer streams, and `flush()` hands
 * over the rest when the text ends.
 *
 * The renderer is injected: tests check the splitting without a terminal, and the chat
 * passes marked-terminal (markdown-terminal.ts), which is loaded only when it is needed.
 */
export type RenderMarkdown = (markdown: string) => string;

const FENCE = /^ {0,3}(```|~~~)/;

export class MarkdownBlocks {
  #buffer = "";
  readonly #render: RenderMarkdown;

  constructor(render: RenderMarkdown) {
    this.#render = render;
  }

  /** Adds a delta; returns the rendered blocks it completed (possibly none). */
  push(delta: string): string[] {
    this.#buffer += delta;
    const cut = completeBlocksEnd(this.#buffer);
    if (cut === 0) return [];
    const ready = this.#buffer.slice(0, cut);
    this.#buffer = this.#buffer.slice(cut);
    return ready.trim() === "" ? [] : [this.#render(ready)];
  }

  /** Renders whatever is left (the text ended). */
  flush(): string | undefined {
    const rest = this.#buffer;
    this.#buffer = "";
    return rest.trim() === "" ? undefined : this.#render(rest);
  }
}

/** Index just past the last blank line that lies outside any code fence, or 0. */
export function completeBlocksEnd(text: string): number {
  let inFence = false;
  let end = 0;
  let offset = 0;
  const lines = text.split("\n");
  // The last element has no newline after it yet: it can never close a block.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    offset += line.length + 1;
    if (FENCE.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === "" && i > 0) end = offset;
  }
  return end;
}
