/**
 * The terminal UI's screen, top to bottom: the banner, the transcript (blocks appended as the
 * chat goes), the slot an approval question opens in, the status line, and the input editor.
 * It needs no session: the chat draws it first, and opens the session behind it.
 * pi-tui renders it differentially into the terminal's normal buffer, so the transcript stays
 * in the scrollback and a resize re-wraps everything.
 *
 * `NoteSink` is the transcript as an `Output`: the slash commands and the line chat's helpers
 * write lines to an Output, and here those lines become transcript blocks.
 */
import type { Container, Editor, Terminal } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";
import { Output } from "../render/output.js";
import { LinesBlock } from "./blocks.js";
import { chatTui, type ChatTui } from "./frame-tui.js";
import { openingStatus, StatusLine } from "./status-line.js";
import type { TuiTheme } from "./theme.js";

export interface Screen {
  tui: ChatTui;
  transcript: Container;
  approvalSlot: Container;
  status: StatusLine;
  editor: Editor;
  out: Output;
  note(text: string): void;
}

/** Text written to an Output, appended to the transcript as wrapped lines. */
class NoteSink {
  readonly #transcript: Container;
  #block: LinesBlock | undefined;
  #lines: string[] = [];

  constructor(transcript: Container) {
    this.#transcript = transcript;
  }

  write(text: string): void {
    const last = this.#transcript.children[this.#transcript.children.length - 1];
    if (this.#block === undefined || last !== this.#block) {
      this.#lines = [""];
      this.#block = new LinesBlock(this.#lines);
      this.#transcript.addChild(this.#block);
    }
    const parts = text.split("\n");
    this.#lines[this.#lines.length - 1] += parts[0]!;
    for (const p of parts.slice(1)) this.#lines.push(p);
    // A trailing newline leaves an empty last line that the next write fills; do not show it.
    this.#block.set(this.#lines[this.#lines.length - 1] === "" ? this.#lines.slice(0, -1) : this.#lines);
  }
}

/** The screen with the status line of a session still opening (`status.setSource` when it is open). */
export function buildScreen(theme: TuiTheme, terminal?: Terminal): Screen {
  const pi = piTui();
  const { Container, Editor, ProcessTerminal } = pi;
  const tui = chatTui(pi, terminal ?? new ProcessTerminal());
  const transcript = new Container();
  const approvalSlot = new Container();
  const statusLine = new StatusLine(openingStatus, theme.c);
  const editor = new Editor(tui, theme.editor, { paddingX: 1, autocompleteMaxVisible: 8 });
  tui.addChild(transcript);
  tui.addChild(approvalSlot);
  tui.addChild(statusLine);
  tui.addChild(editor);
  tui.setFocus(editor);
  const sink = new NoteSink(transcript);
  const out = new Output((t) => {
    sink.write(t);
    tui.requestRender();
  }, theme.c, true);
  return { tui, transcript, approvalSlot, status: statusLine, editor, out, note: (text) => out.line(text) };
}
