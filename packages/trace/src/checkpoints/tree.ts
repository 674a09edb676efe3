/**
 * A checkpoint's tree: every path of the workspace that is not ignored, with what it is —
 * a file (the hash of its bytes, its size and permission bits; `over` when it was above the
 * size limit and so recorded by hash and size only), a symlink (its target, never followed)
 * or a folder (kept so empty folders come back). Stored as one blob per folder, canonical JSON
 * sorted by name (`storeTree`), so the same workspace state always has the same tree id (the
 * root folder's hash) and an unchanged folder is never stored again.
 */
export type TreeEntry =
  | { kind: "file"; hash: string; size: number; mode: number; over?: true }
  | { kind: "symlink"; target: string }
  | { kind: "folder"; mode: number };

export type Tree = ReadonlyMap<string, TreeEntry>;

const TREE_FORMAT = 2;

/** One folder's node: its entries by name; a sub-folder names its own node's id. */
type Row = [string, "f", string, number, number, 1?] | [string, "l", string] | [string, "d", number, string];

const parentOf = (path: string): string => {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
};
const nameOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/**
 * Stores the tree as one node per folder (like git's trees), the deepest first, and returns
 * the root node's id. `put` stores a node's bytes and returns their hash; a folder whose
 * entries did not change has the same node, which the store already holds, so a checkpoint
 * adds only the nodes on the paths from the root to what changed. With `reuse` (the previous
 * tree's folder ids and the folders whose entries changed since), a clean folder's node is
 * not even built again.
 */
export function storeTree(tree: Tree, put: (bytes: Buffer) => string, reuse?: FolderIds): { id: string; folders: Map<string, string> } {
  const children = new Map<string, string[]>([["", []]]);
  for (const path of tree.keys()) {
    const parent = parentOf(path);
    let list = children.get(parent);
    if (list === undefined) children.set(parent, (list = []));
    list.push(path);
  }
  const ids = new Map<string, string>();
  const depth = (folder: string): number => (folder === "" ? 0 : folder.split("/").length);
  const folders = [...children.keys()].sort((a, b) => depth(b) - depth(a) || comparePaths(a, b));
  for (const folder of folders) {
    const known = reuse !== undefined && !reuse.dirty.has(folder) ? reuse.ids.get(folder) : undefined;
    if (known !== undefined) {
      ids.set(folder, known);
      continue;
    }
    const rows: Row[] = [];
    for (const path of children.get(folder)!.sort(comparePaths)) {
      const e = tree.get(path)!;
      const name = nameOf(path);
      if (e.kind === "file") rows.push(e.over === true ? [name, "f", e.hash, e.size, e.mode, 1] : [name, "f", e.hash, e.size, e.mode]);
      else if (e.kind === "symlink") rows.push([name, "l", e.target]);
      else rows.push([name, "d", e.mode, ids.get(path) ?? put(Buffer.from(JSON.stringify({ format: TREE_FORMAT, entries: [] })))]);
    }
    ids.set(folder, put(Buffer.from(JSON.stringify({ format: TREE_FORMAT, entries: rows }))));
  }
  return { id: ids.get("")!, folders: ids };
}

/** The previous tree's folder node ids, and the folders whose entries changed since (they are built again). */
export interface FolderIds {
  ids: ReadonlyMap<string, string>;
  dirty: ReadonlySet<string>;
}

/** Every folder holding one of `paths`, up to the root (""). */
export function foldersAbove(paths: readonly string[]): Set<string> {
  const out = new Set<string>([""]);
  for (const path of paths) {
    for (let folder = parentOf(path); folder !== "" && !out.has(folder); folder = parentOf(folder)) out.add(folder);
  }
  return out;
}

/** The whole tree under the node `id`, flat; `read` gives a node's bytes. */
export function loadTree(id: string, read: (id: string) => Buffer): Map<string, TreeEntry> {
  const tree = new Map<string, TreeEntry>();
  const visit = (nodeId: string, prefix: string) => {
    const parsed = JSON.parse(read(nodeId).toString("utf8")) as { format: number; entries: Row[] };
    if (parsed.format !== TREE_FORMAT) throw new Error(`checkpoint tree format ${parsed.format} is not known to this version (expected ${TREE_FORMAT})`);
    for (const row of parsed.entries) {
      const path = prefix === "" ? row[0] : `${prefix}/${row[0]}`;
      if (row[1] === "f") tree.set(path, row[5] === 1 ? { kind: "file", hash: row[2], size: row[3], mode: row[4], over: true } : { kind: "file", hash: row[2], size: row[3], mode: row[4] });
      else if (row[1] === "l") tree.set(path, { kind: "symlink", target: row[2] });
      else {
        tree.set(path, { kind: "folder", mode: row[2] });
        visit(row[3], path);
      }
    }
  };
  visit(id, "");
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
