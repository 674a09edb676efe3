/**
 * What a write_file or edit_file call would change, as coloured diff lines for the approval
 * panel and the tool block: `-` lines red, `+` lines green, a few unchanged lines of context
 * around each change, `…` between distant hunks. A write is diffed against the file as it is
 * now (a new file is all `+`); an edit replaces `old_string` with `new_string`, so that pair is
 * diffed. The line diff is a longest-common-subsequence table, bounded so a huge file costs at
 * most a plain "all removed, all added" view.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { Colors } from "../io/colors.js";
import { sanitizeForTerminal } from "../io/sanitize.js";

export type DiffLine = { kind: "same" | "add" | "del"; text: string } | { kind: "gap"; hidden: number };

const CONTEXT = 2;
/** Above this many cells the table is skipped. */
const MAX_CELLS = 4_000_000;

function lines(text: string): string[] {
  if (text === "") return [];
  const all = text.split("\n");
  if (all[all.length - 1] === "") all.pop();
  return all;
}

/** A line diff of `before` → `after`, with unchanged runs cut to CONTEXT lines around changes. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = lines(before);
  const b = lines(after);
  const full: DiffLine[] = [];
  if (a.length * b.length > MAX_CELLS) {
    for (const t of a) full.push({ kind: "del", text: t });
    for (const t of b) full.push({ kind: "add", text: t });
  } else {
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        full.push({ kind: "same", text: a[i]! });
        i++;
        j++;
      } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) full.push({ kind: "del", text: a[i++]! });
      else full.push({ kind: "add", text: b[j++]! });
    }
  }
  return withContext(full);
}

function withContext(full: DiffLine[]): DiffLine[] {
  const near = full.map(() => false);
  full.forEach((l, k) => {
    if (l.kind === "same") return;
    for (let d = Math.max(0, k - CONTEXT); d <= Math.min(full.length - 1, k + CONTEXT); d++) near[d] = true;
  });
  const out: DiffLine[] = [];
  let hidden = 0;
  full.forEach((l, k) => {
    if (near[k] === true) {
      if (hidden > 0) out.push({ kind: "gap", hidden });
      hidden = 0;
      out.push(l);
    } else hidden++;
  });
  if (hidden > 0 && out.length > 0) out.push({ kind: "gap", hidden });
  return out;
}

export function paintDiff(diff: readonly DiffLine[], c: Colors): string[] {
  return diff.map((l) => {
    if (l.kind === "gap") return c.dim(`  … ${l.hidden} unchanged line${l.hidden === 1 ? "" : "s"}`);
    const text = sanitizeForTerminal(l.text);
    if (l.kind === "add") return c.green(`+ ${text}`);
    if (l.kind === "del") return c.red(`- ${text}`);
    return c.dim(`  ${text}`);
  });
}

function args(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v)) : {};
  } catch {
    return {};
  }
}

/** The file's text now, when `path` names a readable file inside the workspace (else empty: shown as a new file). */
function currentText(workspace: string, path: string): string {
  const target = resolve(workspace, path);
  try {
    if (!existsSync(target) || !statSync(target).isFile()) return "";
    const real = realpathSync(target);
    const inside = relative(realpathSync(workspace), real);
    if (inside.startsWith("..") || isAbsolute(inside)) return "";
    return readFileSync(real, "utf8");
  } catch {
    return "";
  }
}

/** The diff a write_file / edit_file call would make, or undefined for other tools. */
export function callDiff(name: string, argumentsJson: string, workspace: string): DiffLine[] | undefined {
  const a = args(argumentsJson);
  const path = typeof a["file_path"] === "string" ? a["file_path"] : typeof a["path"] === "string" ? a["path"] : undefined;
  if (name === "write_file" && typeof a["content"] === "string") return diffLines(path === undefined ? "" : currentText(workspace, path), a["content"]);
  if (name === "edit_file" && typeof a["old_string"] === "string" && typeof a["new_string"] === "string") return diffLines(a["old_string"], a["new_string"]);
  return undefined;
}
