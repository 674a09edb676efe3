/**
 * @-file mentions: `@src/app.ts` in a message attaches that file.
 *
 * - `workspaceFiles` lists the workspace's files the way the user's git sees them: `git
 *   ls-files --cached --others --exclude-standard` (so `.gitignore`, nested ones and the global
 *   excludes are respected); outside a git repository, a walk that skips `.git`, `node_modules`
 *   and the root `.gitignore`'s patterns. Capped at MAX_FILES.
 * - `fuzzyFiles` ranks them for a query: the query's characters in order, consecutive runs and
 *   matches in the file name scoring higher.
 * - `MentionCompletion` is the editor's completion provider: after `@` it offers files, else it
 *   hands over to pi-tui's slash-command completion.
 * - `attachMentions` turns a submitted message into what the model receives: the text, each
 *   mentioned text file's content in a `<file path="…">` block after it, and each mentioned
 *   image as an image part. Only files inside the workspace are read.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { extname, isAbsolute, join, relative, resolve } from "node:path";
import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions, CombinedAutocompleteProvider, SlashCommand as TuiSlashCommand } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";

export const MAX_FILES = 20_000;
/** A mentioned file bigger than this is named, not attached. */
export const MAX_ATTACH_BYTES = 256 * 1024;
const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };

function gitFiles(workspace: string): string[] | undefined {
  try {
    const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
    return out.split("\0").filter((p) => p !== "" && existsSync(join(workspace, p)));
  } catch {
    return undefined;
  }
}

/** The root .gitignore's patterns as tests on a relative path (a reduced gitignore: globs, `dir/`, `/anchored`). */
function ignoreRules(workspace: string): Array<(path: string, isDir: boolean) => boolean> {
  let text = "";
  try {
    text = readFileSync(join(workspace, ".gitignore"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("!"))
    .map((pattern) => {
      const dirOnly = pattern.endsWith("/");
      const body = pattern.replace(/\/$/, "");
      const anchored = body.startsWith("/") || body.includes("/");
      const glob = body.replace(/^\//, "").replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*\*/g, "\u0000").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]").replace(/\u0000/g, ".*");
      const re = new RegExp(anchored ? `^${glob}$` : `(^|/)${glob}$`);
      return (path: string, isDir: boolean) => (!dirOnly || isDir) && re.test(path);
    });
}

function walkFiles(workspace: string): string[] {
  const rules = ignoreRules(workspace);
  const files: string[] = [];
  const visit = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(join(workspace, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (files.length >= MAX_FILES) return;
      const rel = dir === "" ? e.name : `${dir}/${e.name}`;
      const isDir = e.isDirectory();
      if (e.name === ".git" || e.name === "node_modules" || rules.some((r) => r(rel, isDir))) continue;
      if (isDir) visit(rel);
      else if (e.isFile()) files.push(rel);
    }
  };
  visit("");
  return files;
}

export function workspaceFiles(workspace: string): string[] {
  return (gitFiles(workspace) ?? walkFiles(workspace)).slice(0, MAX_FILES).sort();
}

/** The score of `path` for `query` (higher is better), or undefined when it does not match. */
export function fuzzyScore(path: string, query: string): number | undefined {
  if (query === "") return 0;
  const p = path.toLowerCase();
  const q = query.toLowerCase();
  const nameStart = p.lastIndexOf("/") + 1;
  let score = 0;
  let at = 0;
  let run = 0;
  for (const ch of q) {
    const found = p.indexOf(ch, at);
    if (found < 0) return undefined;
    run = found === at ? run + 1 : 1;
    score += run * 2 + (found >= nameStart ? 3 : 0) - Math.min(found - at, 5);
    at = found + 1;
  }
  if (p.slice(nameStart).startsWith(q)) score += 20;
  return score - path.length / 100;
}

export function fuzzyFiles(files: readonly string[], query: string, limit = 20): string[] {
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of files) {
    const score = fuzzyScore(path, query);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  return scored.slice(0, limit).map((s) => s.path);
}

const MENTION_BEFORE_CURSOR = /(?:^|\s)(@[^\s]*)$/;

export class MentionCompletion implements AutocompleteProvider {
  readonly #workspace: string;
  readonly #slash: CombinedAutocompleteProvider;
  #files: string[] | undefined;

  constructor(workspace: string, commands: TuiSlashCommand[]) {
    this.#workspace = workspace;
    this.#slash = new (piTui().CombinedAutocompleteProvider)(commands, workspace, null);
  }

  /** The file list, read once per chat (on the first `@`). */
  files(): string[] {
    this.#files ??= workspaceFiles(this.#workspace);
    return this.#files;
  }

  async getSuggestions(lines: string[], cursorLine: number, cursorCol: number, options: { signal: AbortSignal; force?: boolean }): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const mention = MENTION_BEFORE_CURSOR.exec(before);
    if (mention !== null) {
      const prefix = mention[1]!;
      const items: AutocompleteItem[] = fuzzyFiles(this.files(), prefix.slice(1)).map((p) => ({ value: `@${p}`, label: p }));
      return items.length === 0 ? null : { items, prefix };
    }
    if (!before.trimStart().startsWith("/")) return null;
    return this.#slash.getSuggestions(lines, cursorLine, cursorCol, options);
  }

  applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string): { lines: string[]; cursorLine: number; cursorCol: number } {
    if (!prefix.startsWith("@")) return this.#slash.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    const line = lines[cursorLine] ?? "";
    const start = cursorCol - prefix.length;
    const next = `${line.slice(0, start)}${item.value} ${line.slice(cursorCol)}`;
    const out = [...lines];
    out[cursorLine] = next;
    return { lines: out, cursorLine, cursorCol: start + item.value.length + 1 };
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return MENTION_BEFORE_CURSOR.test((lines[cursorLine] ?? "").slice(0, cursorCol));
  }
}

export type Attachment = { kind: "text"; path: string; content: string } | { kind: "image"; path: string; mimeType: string; base64: string } | { kind: "skipped"; path: string; why: string };

/** The files `@path` tokens of `text` name, read from inside the workspace. */
export function readMentions(text: string, workspace: string): Attachment[] {
  const seen = new Set<string>();
  const out: Attachment[] = [];
  let root: string;
  try {
    root = realpathSync(workspace);
  } catch {
    return [];
  }
  for (const m of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const path = m[1]!.replace(/[,.;:!?)]+$/, "");
    if (seen.has(path)) continue;
    seen.add(path);
    let real: string;
    try {
      real = realpathSync(resolve(workspace, path));
      if (!statSync(real).isFile()) continue;
    } catch {
      continue;
    }
    const inside = relative(root, real);
    if (inside.startsWith("..") || isAbsolute(inside)) {
      out.push({ kind: "skipped", path, why: "outside the workspace" });
      continue;
    }
    const size = statSync(real).size;
    const image = IMAGE_TYPES[extname(real).toLowerCase()];
    if (size > MAX_ATTACH_BYTES * (image === undefined ? 1 : 20)) {
      out.push({ kind: "skipped", path, why: `${size} bytes is over the attach limit` });
      continue;
    }
    const bytes = readFileSync(real);
    if (image !== undefined) out.push({ kind: "image", path, mimeType: image, base64: bytes.toString("base64") });
    else if (bytes.includes(0)) out.push({ kind: "skipped", path, why: "a binary file" });
    else out.push({ kind: "text", path, content: bytes.toString("utf8") });
  }
  return out;
}

/** The message text with the text attachments appended, as the model reads it. */
export function textWithAttachments(text: string, attachments: readonly Attachment[]): string {
  const blocks = attachments.filter((a) => a.kind === "text").map((a) => `<file path="${a.path}">\n${a.content.replace(/\n$/, "")}\n</file>`);
  return blocks.length === 0 ? text : `${text}\n\n${blocks.join("\n\n")}`;
}
