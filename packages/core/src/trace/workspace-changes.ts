/**
 * What changed in a session's workspace at one record, or between two (issue 29's scrubber):
 * the paths whose entry differs between the checkpoints in force at `from` and at `at`, each
 * with its unified diff (the first `diffs` of them; a folder's diff is its own line only, its
 * files are listed on their own), and how many paths the workspace holds
 * there. One answer for one cursor move: the web asked for the full file list twice and a
 * diff per path before. When both records share one checkpoint (found from the trace's
 * `workspace_checkpoint` events) nothing changed and no tree is compared; a `from` before any
 * checkpoint counts every path at `at` as new.
 */
import { changedPaths, type Tree } from "@penguin/trace";
import type { AgentPaths } from "../state/paths.js";
import { checkpointAt, openCheckpoints, type CheckpointAt } from "./workspace-files.js";
import { diffOfTrees } from "./workspace-rewind.js";

export interface WorkspaceChanges {
  /** The records compared (resolved from what was asked). */
  at: number;
  from: number | undefined;
  checkpoint: { n: number; position: string; tree: string; changed: string[] };
  /** Paths in the workspace at `at`. */
  total: number;
  /** The first changed paths, sorted, each with its diff. */
  changes: { path: string; diff: string }[];
  /** Changed paths beyond those listed. */
  more: number;
}

const EMPTY: Tree = new Map();

/**
 * The changes between `from` (default: the record before `at`) and `at`, with diffs of at
 * most `diffs` paths. A record without a checkpoint at `at` throws like `checkpointAt`.
 */
export function changesAt(paths: AgentPaths, sessionId: string, at: number | string | undefined, from: number | string | undefined, diffs: number): WorkspaceChanges {
  const here = checkpointAt(paths, sessionId, at);
  const fromRecord = from ?? (here.record.n > 1 ? here.record.n - 1 : undefined);
  let before: CheckpointAt | undefined;
  if (fromRecord !== undefined) {
    try {
      before = checkpointAt(paths, sessionId, fromRecord);
    } catch {
      // No checkpoint there yet: every path at `at` is new.
    }
  }
  const payload = here.checkpoint.message.payload;
  const checkpoint = { n: here.checkpoint.n, position: here.checkpoint.position, tree: payload.tree, changed: payload.changed };
  const store = openCheckpoints(paths, here.workspace);
  const after = store.treeOf(payload.tree);
  const resolvedFrom = before?.record.n ?? (typeof fromRecord === "number" ? fromRecord : undefined);
  if (before !== undefined && before.checkpoint.message.payload.tree === payload.tree) {
    return { at: here.record.n, from: resolvedFrom, checkpoint, total: after.size, changes: [], more: 0 };
  }
  const previous = before === undefined ? EMPTY : store.treeOf(before.checkpoint.message.payload.tree);
  const changed = changedPaths(previous, after);
  const shown = changed.slice(0, Math.max(0, diffs));
  const changes = store.store.reading(() => shown.map((path) => ({ path, diff: diffOfTrees(store, previous, after, (p) => p === path) })));
  return { at: here.record.n, from: resolvedFrom, checkpoint, total: after.size, changes, more: changed.length - shown.length };
}
