// The site's Markdown pages and their fenced blocks, read the way the tests need them: each
// block with its language, its text, the line it starts on and the marker comment just above
// it (`<!-- run… -->` or `<!-- not-run: reason -->`).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const SITE = fileURLToPath(new URL("../site/", import.meta.url));
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));

export interface Page {
  /** Path under site/, e.g. `zh/guide/replay.md`. */
  path: string;
  text: string;
}

export interface FencedBlock {
  page: string;
  line: number;
  lang: string;
  body: string;
  marker: string | undefined;
}

export function sitePages(dir = SITE): Page[] {
  const pages: Page[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".md")) pages.push({ path: relative(dir, full).split("\\").join("/"), text: readFileSync(full, "utf8") });
    }
  };
  walk(dir);
  return pages.sort((a, b) => a.path.localeCompare(b.path));
}

export function fencedBlocks(page: Page): FencedBlock[] {
  const lines = page.text.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)\s*$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    let end = i + 1;
    while (end < lines.length && !(lines[end] ?? "").startsWith(fence)) end++;
    let above = i - 1;
    while (above >= 0 && (lines[above] ?? "").trim() === "") above--;
    const previous = (lines[above] ?? "").trim();
    blocks.push({
      page: page.path,
      line: i + 1,
      lang: open[2] ?? "",
      body: lines.slice(i + 1, end).join("\n"),
      marker: /^<!-- (?:run|not-run)\b.*-->$/.test(previous) ? previous : undefined,
    });
    i = end;
  }
  return blocks;
}
