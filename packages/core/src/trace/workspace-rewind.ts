/**
 * The workspace's files at any record, and rewinding a session to one (issue 29).
 *
 * - `filesAt` / `fileAt`: the tree of the checkpoint in force at record N, or one file of it.
 * - `diffFilesBetween`: a unified diff of the workspace between two records.
 * - `rewindSession`: in place, holding the session's lease (refused while the session runs).
 *   Files: unless `force`, refused (naming them) when the workspace holds changes made outside
 *   the session since its last checkpoint; then a `before_rewind` checkpoint records the
 *   current state (so the rewind is undoable: rewind to that record), the tree of N is put
 *   back, and a `rewind` checkpoint records what now is. Conversation: the session goes on in
 *   a new trace file that starts as the file holding N did, up to N (a context restarted
 *   there, as a fork at N would be, but keeping the session's id); resume reads it from there.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { eventMessage, type OmniMessage } from "@penguin/omnimessage";
import { TraceWriter, type CheckpointTaken, type RestoreReport, type Tree, type WorkspaceCheckpoints } from "@penguin/trace";
import { unifiedDiff } from "../environment/diff.js";
import { PenguinError } from "../errors.js";
import type { AgentParts } from "../session-build.js";
import { sessionDate } from "../state/ids.js";
import { traceFilePath, type AgentPaths } from "../state/paths.js";
import { pickResumeFile } from "../session-resume.js";
import type { CheckpointSettings } from "@penguin/trace";
import { contextLinesAt } from "./fork.js";
import { sessionTraceFiles } from "./reader.js";
import { checkpointAt, isCheckpoint, lastCheckpointTree, openCheckpoints, type CheckpointAt } from "./workspace-files.js";
import { loadRecording } from "../replay/recording.js";

export interface FilesAt extends CheckpointAt {
  tree: Tree;
}

export function filesAt(paths: AgentPaths, sessionId: string, at: number | string | undefined, settings?: CheckpointSettings): FilesAt {
  const found = checkpointAt(paths, sessionId, at);
  const store = openCheckpoints(paths, found.workspace, settings);
  return { ...found, tree: store.treeOf(found.checkpoint.message.payload.tree) };
}

/** One path's bytes at record N; undefined bytes for a folder, a link or an over-limit file. */
export function fileAt(paths: AgentPaths, sessionId: string, at: number | string | undefined, path: string): ReturnType<WorkspaceCheckpoints["read"]> & {} {
  const found = checkpointAt(paths, sessionId, at);
  const read = openCheckpoints(paths, found.workspace).read(found.checkpoint.message.payload.tree, path);
  if (read === undefined) throw new PenguinError("invalid_argument", `${path} is not in the workspace at record ${found.record.n} (checkpoint at record ${found.checkpoint.n})`);
  return read;
}

const isBinary = (bytes: Buffer): boolean => bytes.subarray(0, 8000).includes(0);

/**
 * A unified diff of the workspace (or of `path` and what lies below it) from record `from` to
 * `to`; a path `hide` names is left out (the server's secret files).
 */
export function diffFilesBetween(paths: AgentPaths, sessionId: string, from: number | string, to: number | string, path?: string, hide?: (path: string) => boolean): string {
  const a = checkpointAt(paths, sessionId, from);
  const b = checkpointAt(paths, sessionId, to);
  const store = openCheckpoints(paths, b.workspace);
  const within = (p: string) => (path === undefined || path === "" || p === path || p.startsWith(`${path.replace(/\/$/, "")}/`)) && hide?.(p) !== true;
  return diffOfTrees(store, store.treeOf(a.checkpoint.message.payload.tree), store.treeOf(b.checkpoint.message.payload.tree), within);
}

/** The unified diff between two trees of one store, of the paths `within` keeps. */
export function diffOfTrees(store: WorkspaceCheckpoints, before: Tree, after: Tree, within: (path: string) => boolean): string {
  const names = [...new Set([...before.keys(), ...after.keys()])].filter(within).sort();
  const out: string[] = [];
  for (const name of names) {
    const x = before.get(name);
    const y = after.get(name);
    if (x !== undefined && y !== undefined && JSON.stringify(x) === JSON.stringify(y)) continue;
    if (x?.kind === "folder" || y?.kind === "folder") {
      if (x?.kind === "folder" && y?.kind === "folder") out.push(`mode of ${name}/ ${x.mode.toString(8)} -> ${y.mode.toString(8)}`);
      else if (x?.kind !== "folder" && y?.kind === "folder" && x === undefined) out.push(`folder ${name}/ created`);
      else if (x?.kind === "folder" && y === undefined) out.push(`folder ${name}/ removed`);
      if (!(x?.kind === "folder" && y?.kind === "folder")) {
        if (x !== undefined && x.kind !== "folder") out.push(`${name} replaced by a folder`);
        if (y !== undefined && y.kind !== "folder") out.push(`folder ${name}/ replaced by a ${y.kind}`);
      }
      continue;
    }
    const text = (e: typeof x): string | Buffer => {
      if (e === undefined) return "";
      if (e.kind === "symlink") return `-> ${e.target}\n`;
      if (e.kind === "file" && e.over === true) return `(above the size limit: ${e.size} bytes, sha256 ${e.hash})\n`;
      return e.kind === "file" ? store.store.read(e.hash) : "";
    };
    const tx = text(x);
    const ty = text(y);
    if (x?.kind === "file" && y?.kind === "file" && x.hash === y.hash) {
      out.push(`mode of ${name} ${x.mode.toString(8)} -> ${y.mode.toString(8)}`);
      continue;
    }
    if ((Buffer.isBuffer(tx) && isBinary(tx)) || (Buffer.isBuffer(ty) && isBinary(ty))) {
      out.push(`Binary files ${x === undefined ? "/dev/null" : `a/${name}`} and ${y === undefined ? "/dev/null" : `b/${name}`} differ`);
      continue;
    }
    let diff = unifiedDiff(name, tx.toString(), ty.toString(), x === undefined);
    if (y === undefined) diff = diff.replace(`+++ b/${name}`, "+++ /dev/null");
    out.push(diff.trimEnd());
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

export type RewindWhat = "files" | "conversation" | "both";

export interface RewindResult {
  /** The record rewound to, and the checkpoint whose files came back. */
  record: number;
  checkpointRecord?: number;
  files?: RestoreReport;
  /** The record holding the state before the rewind (rewind to it to undo). */
  undoRecord?: number;
  /** The trace file the conversation goes on in. */
  conversationFile?: string;
}

export class OutsideChangesError extends PenguinError {
  constructor(readonly paths: string[]) {
    super(
      "invalid_argument",
      `the workspace holds changes made outside the session since its last checkpoint: ${paths.slice(0, 20).join(", ")}${paths.length > 20 ? ` and ${paths.length - 20} more` : ""}. Rewinding would lose them; commit or copy them first, or pass --force to record them and rewind anyway`,
    );
  }
}

export function rewindSession(
  parts: Pick<AgentParts, "paths" | "hold"> & { options: { checkpoints?: false | CheckpointSettings } },
  sessionId: string,
  to: number | string,
  options: { what?: RewindWhat; force?: boolean } = {},
): RewindResult {
  const what = options.what ?? "both";
  const paths = parts.paths;
  const lease = parts.hold(sessionId);
  try {
    const settings = parts.options.checkpoints === false ? undefined : parts.options.checkpoints;
    const found = what === "conversation" ? undefined : checkpointAt(paths, sessionId, to);
    const result: RewindResult = { record: found?.record.n ?? 0 };
    const pick = pickResumeFile(sessionTraceFiles(paths, sessionId), { fold: false });
    if (pick.meta === undefined) throw new PenguinError("session_unreadable", `session ${sessionId} has no readable session_meta line; nothing was changed`);
    let facts: OmniMessage[] = [];
    const priorLast = loadRecording({ paths }, sessionId).events.filter((e) => isCheckpoint(e.message)).at(-1)?.n;
    let before: CheckpointTaken | undefined;
    if (found !== undefined) {
      const checkpoints = openCheckpoints(paths, found.workspace, settings);
      const last = lastCheckpointTree(paths, sessionId);
      if (last !== undefined) checkpoints.seed(last);
      const outside = checkpoints.changedSinceLast();
      if (outside.length > 0 && options.force !== true) throw new OutsideChangesError(outside);
      before = checkpoints.take();
      if (before !== undefined) facts.push(eventMessage({ type: "workspace_checkpoint", tree: before.tree, changed: before.changed, reason: "before_rewind" }));
      const target = found.checkpoint.message.payload.tree;
      result.files = checkpoints.restore(target);
      result.checkpointRecord = found.checkpoint.n;
      const after = checkpoints.take();
      if (after !== undefined) facts.push(eventMessage({ type: "workspace_checkpoint", tree: after.tree, changed: after.changed, reason: "rewind" }));
    }
    const date = sessionDate(sessionId);
    if (what !== "files") {
      // The conversation: a new file, the context as it was at `to`, then the file facts.
      const { lines, target } = contextLinesAt(paths, sessionId, sessionId, to, undefined);
      const file = traceFilePath(paths, date, sessionId, pick.index + 1);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600, flag: "wx" });
      result.record = target.n;
      result.conversationFile = file;
      const next = pickResumeFile(sessionTraceFiles(paths, sessionId), { fold: false });
      appendFacts(paths, sessionId, next, facts);
    } else appendFacts(paths, sessionId, pick, facts);
    if (result.files !== undefined) {
      // The undo point: the before_rewind checkpoint, else the last one before the rewind (the workspace was that).
      const checkpoints = loadRecording({ paths }, sessionId).events.filter((e) => isCheckpoint(e.message));
      const undo = before !== undefined ? checkpoints.filter((e) => isCheckpoint(e.message) && e.message.payload.reason === "before_rewind").at(-1)?.n : priorLast;
      if (undo !== undefined) result.undoRecord = undo;
    }
    facts = [];
    return result;
  } finally {
    lease.release();
  }
}

function appendFacts(paths: AgentPaths, sessionId: string, pick: ReturnType<typeof pickResumeFile>, facts: OmniMessage[]): void {
  if (facts.length === 0 || pick.meta === undefined) return;
  const writer = new TraceWriter({ fileFor: (index) => traceFilePath(paths, sessionDate(sessionId), sessionId, index), index: pick.index, meta: pick.meta, existing: true, toolsWritten: true });
  try {
    for (const fact of facts) writer.append(fact);
  } finally {
    writer.close();
  }
}
