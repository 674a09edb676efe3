/**
 * Scanning a whole workspace (or one folder of it) into a checkpoint tree: the baseline, each
 * task's start, and any checkpoint the file watch cannot vouch for (changed-scan.ts does the
 * rest). Each path is lstat'ed and compared with what the previous scan saw (size, mtime,
 * ctime, inode); only files whose stat changed are read and hashed, and files changed just
 * before they were read (racily clean). ctime catches a chmod and a rewrite that kept the mtime. New contents go into the pending pack (unless above the size limit: then the
 * file is hashed in chunks and recorded by hash and size only). Symlinks are recorded, never
 * followed; sockets and fifos are left out; ignored folders are never entered.
 */
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync, type Stats } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { isIgnored, parseIgnoreLines, type RuleSet } from "./ignore-rules.js";
import type { PendingPack } from "./pack-store.js";
import type { TreeEntry } from "./tree.js";

export interface SeenFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
  /** The tree entry made from this stat (reused while the stat is the same: no new objects per scan). */
  entry: TreeEntry;
  /**
   * Changed so shortly before it was read that a rewrite in the same clock tick would keep
   * this stat (file times are coarse, a few ms): the next scan reads it again (git's "racily clean").
   */
  racy?: true;
}

/** What the scan remembers between runs: the stat and hash of each file it read. */
export type StatCache = Map<string, SeenFile>;

export interface ScanOptions {
  workspace: string;
  /** Gitignore lines applied at the workspace root before its own `.gitignore`. */
  ignore: readonly string[];
  /** Files above this many bytes are recorded by hash and size only. */
  maxFileBytes: number;
  /** Called for each folder entered, before it is read (the file watch starts watching it). */
  onFolder?: (path: string, ino: number) => void;
}

export interface ScanResult {
  tree: Map<string, TreeEntry>;
  cache: StatCache;
  /** The ignore rules in force in each folder scanned (what a later scan of one path needs). */
  rules: Map<string, RuleSet[]>;
}

const CHUNK = 1 << 20;
/** A file changed less than this long before it was read is read again by the next scan. */
const RACY_MS = 50;

/** The configured ignore lines as the root's first rule set. */
export const configuredRules = (options: ScanOptions): RuleSet => ({ base: "", rules: parseIgnoreLines(options.ignore.join("\n")) });

/** Scans the workspace; new file contents are added to `pending` (a store that has them skips them). */
export function scanWorkspace(options: ScanOptions, previous: StatCache, pending: PendingPack): ScanResult {
  const into: ScanResult = { tree: new Map(), cache: new Map(), rules: new Map() };
  let ino: number;
  try {
    // The workspace folder itself may be reached through a link: its watch is on the target.
    ino = statSync(options.workspace).ino;
  } catch {
    return into;
  }
  scanFolder(options, options.workspace, "", [configuredRules(options)], ino, previous, pending, into);
  return into;
}

/**
 * Scans one folder and everything below it into `into` (`sets`: the rules in force in its
 * parent). A file whose stat is the one in `previous` is not read again.
 */
export function scanFolder(options: ScanOptions, folder: string, relative: string, sets: RuleSet[], ino: number, previous: StatCache, pending: PendingPack, into: ScanResult): void {
  options.onFolder?.(relative, ino);
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
  into.rules.set(relative, here);
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
      into.tree.set(path, { kind: "folder", mode: stat.mode & 0o7777 });
      scanFolder(options, full, path, here, stat.ino, previous, pending, into);
    } else addLeaf(options, full, path, stat, here, previous.get(path), pending, into);
  }
}

/** A file or symlink (not ignored) into `into`; false when it is left out (ignored, gone, or neither). */
export function addLeaf(options: ScanOptions, full: string, path: string, stat: Stats, sets: readonly RuleSet[], before: SeenFile | undefined, pending: PendingPack, into: Omit<ScanResult, "rules">): boolean {
  if (stat.isSymbolicLink()) {
    if (isIgnored(sets, path, false)) return false;
    try {
      into.tree.set(path, { kind: "symlink", target: readlinkSync(full) });
      return true;
    } catch {
      return false;
    }
  }
  if (!stat.isFile() || isIgnored(sets, path, false)) return false;
  const seen = fileEntry(full, stat, before, options.maxFileBytes, pending);
  if (seen === undefined) return false;
  into.tree.set(path, seen.entry);
  into.cache.set(path, seen.cache);
  return true;
}

function fileEntry(full: string, stat: Stats, before: SeenFile | undefined, maxFileBytes: number, pending: PendingPack): { entry: TreeEntry; cache: SeenFile } | undefined {
  const mode = stat.mode & 0o7777;
  const over = stat.size > maxFileBytes;
  const unchanged = before !== undefined && before.racy !== true && before.size === stat.size && before.mtimeMs === stat.mtimeMs && before.ctimeMs === stat.ctimeMs && before.ino === stat.ino;
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
  const cache: SeenFile = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, hash, entry };
  if (Date.now() - Math.max(stat.mtimeMs, stat.ctimeMs) < RACY_MS) cache.racy = true;
  return { entry, cache };
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
