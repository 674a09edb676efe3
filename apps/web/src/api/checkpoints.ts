/**
 * A session's workspace files at any event (issue 29), over the checkpoint routes: the files
 * at a position (`GET S/checkpoints/files?at=`), what changed at a position with a diff of
 * each path (`GET S/checkpoints/changes?at=&from=`: the files panel's one request per cursor
 * move), a unified diff between two positions for one path (`GET S/checkpoints/diff`), and
 * restoring the files in place (`POST S/checkpoints/restore`, undoable: the answer names the
 * record to restore for undoing it).
 *
 * Answers are read field by field (read.ts), like the time-travel state, so the panel never
 * sees a half-shaped object. `changedPaths` compares two file lists (the server's changes
 * route does the same on its side).
 */
import { get, post, seg, withQuery } from "./http";
import { arr, asRecord, bool, num, str } from "./read";

export interface CheckpointEntry {
  path: string;
  kind: "file" | "symlink" | "folder";
  size: number | undefined;
  mode: number | undefined;
  hash: string | undefined;
  target: string | undefined;
  /** Above the checkpoint size limit: recorded by hash and size only. */
  over: boolean;
}

export interface WorkspaceFilesAt {
  /** The record the position resolved to, and the checkpoint in force there. */
  at: number;
  checkpoint: { n: number; position: string; changed: string[] };
  files: CheckpointEntry[];
}

export interface FilesRestored {
  checkpointRecord: number | undefined;
  /** Restoring to this record undoes the restore. */
  undoRecord: number | undefined;
  written: string[];
  removed: string[];
  notRestored: { path: string; reason: string }[];
}

const strings = (v: unknown[]): string[] => v.filter((s): s is string => typeof s === "string");

function entryOf(raw: unknown): CheckpointEntry[] {
  const o = asRecord(raw);
  const path = str(o, "path");
  const kind = str(o, "kind");
  if (path === undefined || (kind !== "file" && kind !== "symlink" && kind !== "folder")) return [];
  return [{ path, kind, size: num(o, "size"), mode: num(o, "mode"), hash: str(o, "hash"), target: str(o, "target"), over: bool(o, "over") ?? false }];
}

export function workspaceFilesOf(raw: unknown): WorkspaceFilesAt {
  const o = asRecord(raw);
  const checkpoint = asRecord(o.checkpoint);
  return {
    at: num(o, "at") ?? 0,
    checkpoint: { n: num(checkpoint, "n") ?? 0, position: str(checkpoint, "position") ?? "", changed: strings(arr(checkpoint, "changed")) },
    files: arr(o, "files").flatMap(entryOf),
  };
}

/** The paths whose entry differs between two file lists (added, removed, or changed in kind, content, mode or target), sorted. */
export function changedPaths(before: readonly CheckpointEntry[], after: readonly CheckpointEntry[]): string[] {
  const key = (e: CheckpointEntry) => `${e.kind}|${e.hash ?? ""}|${e.mode ?? ""}|${e.target ?? ""}`;
  const was = new Map(before.map((e) => [e.path, key(e)]));
  const now = new Map(after.map((e) => [e.path, key(e)]));
  const paths = new Set<string>();
  for (const [path, k] of now) if (was.get(path) !== k) paths.add(path);
  for (const path of was.keys()) if (!now.has(path)) paths.add(path);
  return [...paths].sort();
}

export async function getWorkspaceFiles(sessionId: string, position: string, signal?: AbortSignal): Promise<WorkspaceFilesAt> {
  return workspaceFilesOf(await get(withQuery(`/api/sessions/${seg(sessionId)}/checkpoints/files`, { at: position }), signal));
}

export interface WorkspaceChanges {
  at: number;
  /** The first changed paths, sorted, each with its unified diff. */
  changes: { path: string; diff: string }[];
  /** Changed paths beyond those listed. */
  more: number;
  /** Paths in the workspace at the position. */
  total: number;
}

export function workspaceChangesOf(raw: unknown): WorkspaceChanges {
  const o = asRecord(raw);
  return {
    at: num(o, "at") ?? 0,
    changes: arr(o, "changes").flatMap((c) => {
      const r = asRecord(c);
      const path = str(r, "path");
      return path === undefined ? [] : [{ path, diff: str(r, "diff") ?? "" }];
    }),
    more: num(o, "more") ?? 0,
    total: num(o, "total") ?? 0,
  };
}

/** What changed at `position` since `from` (the previous event), with the diffs of the first `diffs` paths: one request. */
export async function getWorkspaceChanges(sessionId: string, position: string, from: string | undefined, diffs: number, signal?: AbortSignal): Promise<WorkspaceChanges> {
  const query: Record<string, string> = { at: position, diffs: String(diffs) };
  if (from !== undefined) query.from = from;
  return workspaceChangesOf(await get(withQuery(`/api/sessions/${seg(sessionId)}/checkpoints/changes`, query), signal));
}

/** The unified diff of one path between two positions (empty: no change). */
export async function getWorkspaceDiff(sessionId: string, from: string, to: string, path: string, signal?: AbortSignal): Promise<string> {
  return str(asRecord(await get(withQuery(`/api/sessions/${seg(sessionId)}/checkpoints/diff`, { from, to, path }), signal)), "diff") ?? "";
}

/** Restores the session's workspace files to a position or record number, in place. */
export async function restoreFiles(sessionId: string, at: string | number, force = false): Promise<FilesRestored> {
  const o = asRecord(await post(`/api/sessions/${seg(sessionId)}/checkpoints/restore`, force ? { at, force: true } : { at }));
  return {
    checkpointRecord: num(o, "checkpointRecord"),
    undoRecord: num(o, "undoRecord"),
    written: strings(arr(o, "written")),
    removed: strings(arr(o, "removed")),
    notRestored: arr(o, "notRestored").flatMap((raw) => {
      const r = asRecord(raw);
      const path = str(r, "path");
      return path === undefined ? [] : [{ path, reason: str(r, "reason") ?? "" }];
    }),
  };
}
