/**
 * Scanning a workspace into a checkpoint tree, fast enough to run after every tool call: each
 * path is lstat'ed and compared with what the previous scan saw (size, mtime, ctime, inode);
 * only files whose stat changed are read and hashed. ctime catches a chmod and a rewrite that
 * kept the mtime. New contents go into the pending pack (unless above the size limit: then the
 * file is hashed in chunks and recorded by hash and size only). Symlinks are recorded, never
 * followed; sockets and fifos are left out; ignored folders are never entered.
 */
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, type Stats } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { isIgnored, parseIgnoreLines, type RuleSet } from "./ignore-rules.js";
import type { PendingPack } from "./pack-store.js";
import type { TreeEntry } from "./tree.js";

interface SeenFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
  /** The tree entry made from this stat (reused while the stat is the same: no new objects per scan). */
  entry: TreeEntry;
}

/** What the scan remembers between runs: the stat and hash of each file it read. */
export type StatCache = Map<string, SeenFile>;

export interface ScanOptions {
  workspace: string;
  /** Gitignore lines applied at the workspace root before its own `.gitignore`. */
  ignore: readonly string[];
  /** Files above this many bytes are recorded by hash and size only. */
  maxFileBytes: number;
}

export interface ScanResult {
  tree: Map<string, TreeEntry>;
  cache: StatCache;
}

const CHUNK = 1 << 20;

/** Scans the workspace; new file contents are added to `pending` (a store that has them skips them). */
export function scanWorkspace(options: ScanOptions, previous: StatCache, pending: PendingPack): ScanResult {
  const tree = new Map<string, TreeEntry>();
  const cache: StatCache = new Map();
  const configured: RuleSet = { base: "", rules: parseIgnoreLines(options.ignore.join("\n")) };

  const walk = (folder: string, relative: string, sets: RuleSet[]): void => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    let here = sets;
    if (names.includes(".gitignore")) {
      const own = readText(join(folder, ".gitignore"));
      if (own !== undefined) here = [...sets, { base: relative, rules: parseIgnoreLines(own) }];
    }
    names.sort();
    for (const name of names) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const full = join(folder, name);
      let stat: Stats;
      try {
        stat = lstatSync(full);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (isIgnored(here, path, true)) continue;
        tree.set(path, { kind: "folder", mode: stat.mode & 0o7777 });
        walk(full, path, here);
      } else if (stat.isSymbolicLink()) {
        if (isIgnored(here, path, false)) continue;
        try {
          tree.set(path, { kind: "symlink", target: readlinkSync(full) });
        } catch {
          continue;
        }
      } else if (stat.isFile()) {
        if (isIgnored(here, path, false)) continue;
        const seen = fileEntry(full, path, stat, previous.get(path), options.maxFileBytes, pending);
        if (seen === undefined) continue;
        tree.set(path, seen.entry);
        cache.set(path, seen.cache);
      }
    }
  };
  walk(options.workspace, "", [configured]);
  return { tree, cache };
}

function fileEntry(full: string, path: string, stat: Stats, before: SeenFile | undefined, maxFileBytes: number, pending: PendingPack): { entry: TreeEntry; cache: SeenFile } | undefined {
  const mode = stat.mode & 0o7777;
  const over = stat.size > maxFileBytes;
  const unchanged = before !== undefined && before.size === stat.size && before.mtimeMs === stat.mtimeMs && before.ctimeMs === stat.ctimeMs && before.ino === stat.ino;
  if (unchanged && (over || pending.store.has(before.hash))) return { entry: before.entry, cache: before };
  let hash: string;
  if (over) {
    const hashed = hashFileInChunks(full);
    if (hashed === undefined) return undefined;
    hash = hashed;
  } else {
    let bytes: Buffer;
    try {
      bytes = readFileSync(full);
    } catch {
      return undefined;
    }
    hash = pending.add(bytes);
  }
  const entry: TreeEntry = over ? { kind: "file", hash, size: stat.size, mode, over: true } : { kind: "file", hash, size: stat.size, mode };
  return { entry, cache: { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, hash, entry } };
}

function hashFileInChunks(full: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(full, "r");
  } catch {
    return undefined;
  }
  try {
    const hash = createHash("sha256");
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
