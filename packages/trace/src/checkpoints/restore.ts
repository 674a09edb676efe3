/**
 * Restoring a checkpoint's tree into a workspace, in place, touching only what differs from
 * the workspace as just scanned: paths the tree lacks are removed (files and links first,
 * then folders deepest first), folders are made, files are written to a temp name beside
 * them and renamed over (a reader never sees half a file), links are made again, and the
 * permission bits set. Ignored paths are never seen, so never touched. A file above the size
 * limit was recorded by hash and size only: it is restored only when the workspace already
 * holds those bytes, and never removed or overwritten (nothing could bring it back); each such
 * path is reported, as is a folder kept because it holds ignored files. Nothing is written
 * below a folder that is now a link (an ignored one, so never scanned): it would lead out.
 */
import { chmodSync, closeSync, fchmodSync, lstatSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import type { PackStore } from "./pack-store.js";
import { comparePaths, sameEntry, type Tree } from "./tree.js";

export interface RestoreReport {
  written: string[];
  removed: string[];
  /** Paths left as they are, with why. */
  notRestored: { path: string; reason: string }[];
}

const OVER_LIMIT = "above the checkpoint size limit: recorded by hash and size only, left as it is";

export function restoreTree(workspace: string, store: PackStore, target: Tree, current: Tree): RestoreReport {
  const report: RestoreReport = { written: [], removed: [], notRestored: [] };
  const full = (path: string) => join(workspace, ...path.split("/"));
  const kept = new Set<string>();
  // Every write lands inside the workspace: a folder on the way that is now a link (an ignored
  // one, never scanned) would lead out, so such a path is left alone and reported.
  const base = join(workspace);
  // Each folder is looked at once per restore (a thousand files in ten folders: ten lstats).
  // Only folders made by this restore (never links) come after a look, so the answer holds.
  const folderIsLink = new Map<string, boolean>();
  const isLink = (folder: string): boolean => {
    let known = folderIsLink.get(folder);
    if (known === undefined) {
      try {
        known = lstatSync(folder).isSymbolicLink();
      } catch {
        known = false; // not made yet: its parents decide
      }
      if (known) folderIsLink.set(folder, known);
    }
    return known;
  };
  const inside = (path: string, itself = false): boolean => {
    for (let folder = itself ? full(path) : dirname(full(path)); folder.length > base.length; folder = dirname(folder)) {
      if (isLink(folder)) return false;
    }
    return true;
  };
  const LEADS_OUT = "a folder on its way is a link (ignored, so never restored): writing there would leave the workspace";

  // 1. What the target lacks, or holds as another kind. Deepest first, so folders are empty when reached.
  const removals = [...current.keys()].filter((p) => {
    const want = target.get(p);
    const have = current.get(p)!;
    return want === undefined || want.kind !== have.kind;
  });
  removals.sort((a, b) => comparePaths(b, a));
  for (const path of removals) {
    const have = current.get(path)!;
    if (have.kind === "file" && have.over === true) {
      report.notRestored.push({ path, reason: OVER_LIMIT });
      kept.add(path);
      continue;
    }
    try {
      if (have.kind === "folder") rmdirSync(full(path));
      else unlinkSync(full(path));
      report.removed.push(path);
    } catch (error) {
      kept.add(path);
      report.notRestored.push({ path, reason: `could not be removed (${(error as NodeJS.ErrnoException).code ?? String(error)}): it holds ignored or over-limit files` });
    }
  }

  // 2. Folders, parents first (their modes are set last: a read-only folder must still be filled).
  const paths = [...target.keys()].sort(comparePaths);
  for (const path of paths) {
    if (target.get(path)!.kind !== "folder" || kept.has(path)) continue;
    if (!inside(path, true)) {
      kept.add(path);
      report.notRestored.push({ path, reason: LEADS_OUT });
      continue;
    }
    mkdirSync(full(path), { recursive: true });
  }

  // 3. Files and links that differ.
  for (const path of paths) {
    const want = target.get(path)!;
    const have = current.get(path);
    if (want.kind === "folder" || sameEntry(have, want) || kept.has(path)) continue;
    if (!inside(path)) {
      report.notRestored.push({ path, reason: LEADS_OUT });
      continue;
    }
    if (want.kind === "symlink") {
      if (have !== undefined && have.kind === "symlink") unlinkSync(full(path));
      symlinkSync(want.target, full(path));
      report.written.push(path);
      continue;
    }
    if (have?.kind === "file" && have.hash === want.hash) {
      chmodSync(full(path), want.mode);
      report.written.push(path);
      continue;
    }
    if (want.over === true || (have?.kind === "file" && have.over === true)) {
      report.notRestored.push({ path, reason: OVER_LIMIT });
      continue;
    }
    writeBeside(full(path), store.read(want.hash), want.mode, have?.kind === "file");
    report.written.push(path);
  }

  // 4. Folder modes, deepest first.
  for (const path of [...paths].reverse()) {
    const want = target.get(path)!;
    const have = current.get(path);
    if (want.kind === "folder" && !sameEntry(have, want) && !kept.has(path)) chmodSync(full(path), want.mode);
  }
  return report;
}

/**
 * The file's new bytes go to a temp name beside it, then take its place: a reader sees the
 * old file or the new one, never half of one (for a moment, none: the old one is unlinked
 * first, because renaming over an existing file makes ext4 start writing the new one back
 * at once, auto_da_alloc, which cost ~0.7 ms a file; nothing here needs it on disk yet).
 */
function writeBeside(target: string, bytes: Buffer, mode: number, replacing: boolean): void {
  const temp = join(dirname(target), `.penguin-restore-${randomBytes(6).toString("hex")}`);
  const fd = openSync(temp, "wx", 0o600);
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
  if (replacing) rmSync(target, { force: true });
  renameSync(temp, target);
}
