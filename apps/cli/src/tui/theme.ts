/**
 * The terminal UI's colours, in one place: picocolors decided once from NO_COLOR / TERM (the
 * same rule as the plain chat, io/colors.ts), and the themes pi-tui's components take (the
 * markdown view, the editor and its completion list). With colours off every function is the
 * identity, so no ANSI colour code is written; only pi-tui's cursor and line resets remain.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";
import type { Colors } from "../io/colors.js";
import { highlightCode } from "./highlight.js";

export interface TuiTheme {
  c: Colors;
  markdown: MarkdownTheme;
  editor: EditorTheme;
  selectList: SelectListTheme;
}

export function tuiTheme(c: Colors): TuiTheme {
  const selectList: SelectListTheme = {
    selectedPrefix: (t) => c.cyan(t),
    selectedText: (t) => c.bold(t),
    description: (t) => c.dim(t),
    scrollInfo: (t) => c.dim(t),
    noMatch: (t) => c.dim(t),
  };
  const markdown: MarkdownTheme = {
    heading: (t) => c.bold(c.cyan(t)),
    link: (t) => c.underline(c.blue(t)),
    linkUrl: (t) => c.dim(t),
    code: (t) => c.yellow(t),
    codeBlock: (t) => t,
    codeBlockBorder: (t) => c.dim(t),
    quote: (t) => c.italic(t),
    quoteBorder: (t) => c.dim(t),
    hr: (t) => c.dim(t),
    listBullet: (t) => c.cyan(t),
    bold: (t) => c.bold(t),
    italic: (t) => c.italic(t),
    strikethrough: (t) => c.strikethrough(t),
    underline: (t) => c.underline(t),
    highlightCode: (code, lang) => highlightCode(code, lang, c),
  };
  return { c, markdown, selectList, editor: { borderColor: (t) => c.dim(t), selectList } };
}
