/**
 * A checkpoint's tree: every path of the workspace that is not ignored, with what it is —
 * a file (the hash of its bytes, its size and permission bits; `over` when it was above the
 * size limit and so recorded by hash and size only), a symlink (its target, never followed)
 * or a folder (kept so empty folders come back). Stored as a blob of canonical JSON sorted by
 * path, so the same workspace state always has the same tree id (the blob's hash).
 */
export type TreeEntry =
  | { kind: "file"; hash: string; size: number; mode: number; over?: true }
  | { kind: "symlink"; target: string }
  | { kind: "folder"; mode: number };

export type Tree = ReadonlyMap<string, TreeEntry>;

const TREE_FORMAT = 1;

type Row = [string, "f", string, number, number, 1?] | [string, "l", string] | [string, "d", number];

export function encodeTree(tree: Tree): Buffer {
  const rows: Row[] = [];
  for (const path of [...tree.keys()].sort(comparePaths)) {
    const e = tree.get(path)!;
    if (e.kind === "file") rows.push(e.over === true ? [path, "f", e.hash, e.size, e.mode, 1] : [path, "f", e.hash, e.size, e.mode]);
    else if (e.kind === "symlink") rows.push([path, "l", e.target]);
    else rows.push([path, "d", e.mode]);
  }
  return Buffer.from(JSON.stringify({ format: TREE_FORMAT, entries: rows }));
}

export function decodeTree(bytes: Buffer): Map<string, TreeEntry> {
  const parsed = JSON.parse(bytes.toString("utf8")) as { format: number; entries: Row[] };
  if (parsed.format !== TREE_FORMAT) throw new Error(`checkpoint tree format ${parsed.format} is not known to this version (expected ${TREE_FORMAT})`);
  const tree = new Map<string, TreeEntry>();
  for (const row of parsed.entries) {
    if (row[1] === "f") tree.set(row[0], row[5] === 1 ? { kind: "file", hash: row[2], size: row[3], mode: row[4], over: true } : { kind: "file", hash: row[2], size: row[3], mode: row[4] });
    else if (row[1] === "l") tree.set(row[0], { kind: "symlink", target: row[2] });
    else tree.set(row[0], { kind: "folder", mode: row[2] });
  }
  return tree;
}

/** Byte order of the UTF-16 code units: stable, and the same on every machine. */
export const comparePaths = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function sameEntry(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.kind === "file" && b.kind === "file") return a.hash === b.hash && a.mode === b.mode && a.size === b.size;
  if (a.kind === "symlink" && b.kind === "symlink") return a.target === b.target;
  if (a.kind === "folder" && b.kind === "folder") return a.mode === b.mode;
  return false;
}

/** The paths whose entry differs between two trees (added, removed or changed), sorted. */
export function changedPaths(before: Tree, after: Tree): string[] {
  const out: string[] = [];
  for (const [path, entry] of after) if (!sameEntry(before.get(path), entry)) out.push(path);
  for (const path of before.keys()) if (!after.has(path)) out.push(path);
  return out.sort(comparePaths);
}
