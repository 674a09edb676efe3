// How the terminal UI draws, without a terminal: an answer streamed into StreamingMarkdown is
// drawn as pi-tui draws the whole text (at every step for paragraphs, headings, fenced code
// with blank lines and lists; exactly once finished, whatever the markdown), while a settled
// paragraph is not drawn again as later deltas arrive; FrameTerminal sends a frame's pieces
// as one write, in order, and flushes before the terminal is stopped.
import type { MarkdownTheme, Terminal } from "@mariozechner/pi-tui";
import { beforeAll, describe, expect, it } from "vitest";
import { FrameTerminal } from "../src/tui/frame-tui.js";
import { loadPiTui, piTui } from "../src/tui/pi-tui.js";
import { StreamingMarkdown } from "../src/tui/streaming-markdown.js";

beforeAll(async () => {
  await loadPiTui();
});

const tag =
  (name: string) =>
  (t: string): string =>
    `<${name}>${t}</${name}>`;

function theme(onHeading: () => void = () => {}): MarkdownTheme {
  return {
    heading: (t) => {
      onHeading();
      return `#${t}`;
    },
    link: tag("a"),
    linkUrl: tag("url"),
    code: tag("code"),
    codeBlock: tag("pre"),
    codeBlockBorder: tag("fence"),
    quote: tag("q"),
    quoteBorder: tag("qb"),
    hr: tag("hr"),
    listBullet: tag("li"),
    bold: tag("b"),
    italic: tag("i"),
    strikethrough: tag("s"),
    underline: tag("u"),
  };
}

function whole(text: string, width: number): string[] {
  return new (piTui().Markdown)(text, 0, 0, theme()).render(width);
}

/** Chunks of 1 to 7 characters, always the same ones. */
function chunks(text: string): string[] {
  const out: string[] = [];
  let seed = 7;
  for (let i = 0; i < text.length; ) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (seed % 7);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const ANSWER = [
  "# A heading",
  "",
  "The first paragraph, with **bold** and `code`, long enough to wrap at a narrow width of forty columns.",
  "",
  "",
  "A second paragraph.",
  "",
  "```ts",
  "const a = 1;",
  "",
  "const b = 2;",
  "```",
  "",
  "- one",
  "- two",
  "",
  "## Another heading",
  "",
  "The end.",
].join("\n");

describe("StreamingMarkdown", () => {
  it("draws a streamed answer at every step as the whole text so far is drawn", () => {
    for (const width of [40, 100]) {
      const md = new StreamingMarkdown(theme());
      let sofar = "";
      for (const delta of chunks(ANSWER)) {
        md.append(delta);
        sofar += delta;
        expect(md.render(width), JSON.stringify(sofar)).toEqual(whole(sofar, width));
      }
      md.finish();
      expect(md.render(width)).toEqual(whole(ANSWER, width));
    }
  });

  it("once finished, is drawn exactly as the whole text even where the paragraphs were cut differently", () => {
    // A loose list and an indented code block with a blank line: cut into parts while streaming.
    const text = "Items:\n\n1. first\n\n2. second\n\n3. third\n\n    indented code\n\n    more code\n\nDone.";
    const md = new StreamingMarkdown(theme());
    for (const delta of chunks(text)) md.append(delta);
    md.finish();
    expect(md.render(60)).toEqual(whole(text, 60));
  });

  it("does not draw a settled paragraph again while later deltas arrive", () => {
    let headings = 0;
    const md = new StreamingMarkdown(
      theme(() => {
        headings += 1;
      }),
    );
    md.append("# Title\n\nfirst words");
    md.render(80);
    const afterFirst = headings;
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 200; i++) {
      md.append(` word${i}`);
      md.render(80);
    }
    // Every render lexed only the growing tail: the heading was styled for the first frame only.
    expect(headings).toBe(afterFirst);
    expect(md.render(80).join("\n")).toContain("word199");
  });
});

/** A terminal that records what reaches it. */
class RecordingTerminal implements Terminal {
  readonly events: string[] = [];
  start(): void {
    this.events.push("start");
  }
  stop(): void {
    this.events.push("stop");
  }
  async drainInput(): Promise<void> {}
  write(data: string): void {
    this.events.push(`write ${JSON.stringify(data)}`);
  }
  get columns(): number {
    return 80;
  }
  get rows(): number {
    return 24;
  }
  get kittyProtocolActive(): boolean {
    return false;
  }
  moveBy(lines: number): void {
    this.events.push(`moveBy ${lines}`);
  }
  hideCursor(): void {
    this.events.push("hide");
  }
  showCursor(): void {
    this.events.push("show");
  }
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}

describe("FrameTerminal", () => {
  it("sends a frame's pieces as one write, a hidden cursor once, and flushes before stop", async () => {
    const inner = new RecordingTerminal();
    const frames = new FrameTerminal(inner);
    frames.write("\u001b[2Kline one");
    frames.hideCursor();
    frames.write("\r\n\u001b[2Kline two");
    frames.hideCursor();
    expect(inner.events).toEqual([]);
    await Promise.resolve();
    expect(inner.events).toEqual([`write ${JSON.stringify("\u001b[2Kline one\u001b[?25l\r\n\u001b[2Kline two")}`]);
    frames.write("last");
    frames.moveBy(2);
    frames.write("after");
    frames.stop();
    expect(inner.events.slice(1)).toEqual([`write "last"`, "moveBy 2", `write "after"`, "stop"]);
  });
});
