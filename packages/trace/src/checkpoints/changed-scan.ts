/**
 * The checkpoint after a tool call when a file watch named the paths that changed
 * (`workspace-watch.ts`): only those paths are looked at again, on a copy of the last scan's
 * tree. A named path is lstat'ed: gone, it leaves the tree with everything below it; a file
 * or link is read again (its stat is not trusted: a rewrite in the same clock tick keeps it);
 * a folder that is new, or another folder than the one watched there (removed and made again),
 * is scanned whole and watched. Ignore rules are the ones the full scan found for the path's
 * folder; a path below a folder that is ignored or unknown has no rules and is skipped (its
 * folder's own event brings it in). The cost is that of the changed paths, not the workspace.
 */
import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import { isIgnored, type RuleSet } from "./ignore-rules.js";
import type { PendingPack } from "./pack-store.js";
import { addLeaf, scanFolder, type ScanOptions, type ScanResult } from "./scan.js";
import { comparePaths, sameEntry, type Tree } from "./tree.js";

export interface FolderWatch {
  watches(path: string, ino: number): boolean;
  forgetFolder(path: string): void;
}

const parentOf = (path: string): string => {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
};

/**
 * The scan after `named` changed: `last` is the previous scan (its cache and rules are
 * updated in place; its tree is copied). Returns the new scan and the paths whose entry
 * differs from `previousTree`, sorted; "full" when only a full scan can tell.
 */
export function rescanNamedPaths(options: ScanOptions, last: ScanResult, named: Iterable<string>, watch: FolderWatch, pending: PendingPack): { scan: ScanResult; changed: string[] } | "full" {
  const previousTree: Tree = last.tree;
  const tree = new Map(previousTree);
  const { cache, rules } = last;
  const touched = new Set<string>();
  const full = (path: string) => join(options.workspace, ...path.split("/"));

  const remove = (path: string): void => {
    const entry = tree.get(path);
    if (entry === undefined) return;
    tree.delete(path);
    cache.delete(path);
    touched.add(path);
    if (entry.kind !== "folder") return;
    const prefix = `${path}/`;
    for (const key of [...tree.keys()]) {
      if (!key.startsWith(prefix)) continue;
      tree.delete(key);
      cache.delete(key);
      touched.add(key);
    }
    for (const folder of [...rules.keys()]) if (folder === path || folder.startsWith(prefix)) rules.delete(folder);
    watch.forgetFolder(path);
  };

  const scannedWhole: string[] = [];
  const insideScanned = (path: string): boolean => scannedWhole.some((folder) => path.startsWith(`${folder}/`));

  for (const path of [...named].sort(comparePaths)) {
    if (path === "" || path.endsWith("/.gitignore") || path === ".gitignore") return "full";
    if (insideScanned(path)) continue;
    const sets: RuleSet[] | undefined = rules.get(parentOf(path));
    if (sets === undefined) continue;
    let stat: Stats;
    try {
      stat = lstatSync(full(path));
    } catch {
      remove(path);
      continue;
    }
    const before = tree.get(path);
    if (stat.isDirectory()) {
      if (isIgnored(sets, path, true)) {
        remove(path);
        continue;
      }
      const mode = stat.mode & 0o7777;
      if (before?.kind === "folder" && watch.watches(path, stat.ino)) {
        if (before.mode !== mode) {
          tree.set(path, { kind: "folder", mode });
          touched.add(path);
        }
        continue;
      }
      remove(path);
      tree.set(path, { kind: "folder", mode });
      touched.add(path);
      const found: ScanResult = { tree: new Map(), cache: new Map(), rules: new Map() };
      scanFolder(options, full(path), path, sets, stat.ino, cache, pending, found);
      for (const [key, entry] of found.tree) {
        tree.set(key, entry);
        touched.add(key);
      }
      for (const [key, seen] of found.cache) cache.set(key, seen);
      for (const [key, set] of found.rules) rules.set(key, set);
      scannedWhole.push(path);
      continue;
    }
    if (before?.kind === "folder") remove(path);
    // Read again whatever its stat says (no `before`): the watch says it was written.
    if (addLeaf(options, full(path), path, stat, sets, undefined, pending, { tree, cache })) touched.add(path);
    else remove(path);
  }
  const changed = [...touched].filter((path) => !sameEntry(previousTree.get(path), tree.get(path))).sort(comparePaths);
  return { scan: { tree, cache, rules }, changed };
}
