/**
 * Splits a Markdown file into its YAML front matter and its body.
 *
 * The front matter is the block between a first line `---` and the next line that is `---`
 * (or `...`). A byte-order mark and CRLF line ends are tolerated. `yamlLine` is the 1-based
 * line of the file where the YAML starts, so a parser error at YAML line L is reported at
 * file line `yamlLine + L - 1`. Pure; returns undefined when there is no front matter.
 */
export interface FrontMatter {
  yaml: string;
  /** 1-based file line of the first YAML line (always 2). */
  yamlLine: number;
  body: string;
}

const OPEN = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

export function splitFrontMatter(text: string): FrontMatter | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines.length === 0 || !OPEN.test(lines[0] ?? "")) return undefined;
  const end = lines.findIndex((line, i) => i > 0 && CLOSE.test(line));
  if (end === -1) return undefined;
  return {
    yaml: lines.slice(1, end).join("\n"),
    yamlLine: 2,
    body: lines.slice(end + 1).join("\n"),
  };
}
