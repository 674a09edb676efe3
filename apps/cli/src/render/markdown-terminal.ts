/**
 * The terminal markdown renderer (marked + marked-terminal), loaded on demand: it pulls in
 * syntax highlighting and table code that `penguin --help`, `run` and piped output never
 * need, so it stays off the cold-start path. Used only when stdout is a colour terminal.
 */
import type { RenderMarkdown } from "./markdown-blocks.js";

export async function loadTerminalMarkdown(width: number | undefined): Promise<RenderMarkdown> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
  const marked = new Marked(markedTerminal({ reflowText: false, width: width ?? 80, tab: 2 }));
  return function renderMarkdown(markdown) {
    const out = marked.parse(markdown, { async: false });
    return out.replace(/\n+$/, "");
  };
}
