/** A session's workspace files, its trash and its preview links, as the API answers them. */
import { Schema } from "effect";

export const WorkspaceEntry = Schema.Struct({ name: Schema.String, type: Schema.Literal("file", "dir", "symlink", "other"), size: Schema.Number, mtimeMs: Schema.Number });
export const WorkspaceListing = Schema.Struct({ path: Schema.String, entries: Schema.Array(WorkspaceEntry) });
export const PreviewUrl = Schema.Struct({ url: Schema.String });
export const PathStats = Schema.Struct({
  stats: Schema.Array(
    Schema.Struct({
      path: Schema.String,
      exists: Schema.Boolean,
      type: Schema.optional(Schema.Literal("dir", "file", "other")),
      size: Schema.optional(Schema.Number),
      mtimeMs: Schema.optional(Schema.Number),
      error: Schema.optional(Schema.String),
    }),
  ),
});
export const FileWritten = Schema.Struct({ path: Schema.String, size: Schema.Number });

export const TrashEntryView = Schema.Struct({
  id: Schema.String,
  sessionId: Schema.String,
  agentId: Schema.String,
  title: Schema.NullOr(Schema.String),
  deletedAt: Schema.Number,
  deletedBy: Schema.NullOr(Schema.String),
  traceFiles: Schema.Number,
});
export const TrashList = Schema.Struct({ sessions: Schema.Array(TrashEntryView) });
export const TrashPurged = Schema.Struct({
  purged: Schema.Array(Schema.Struct({ id: Schema.String, projectId: Schema.String, agentId: Schema.String, deletedAt: Schema.Number })),
  kept: Schema.Number,
});

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type WorkspaceEntry = typeof WorkspaceEntry.Type;
export type WorkspaceListing = typeof WorkspaceListing.Type;
export type PreviewUrl = typeof PreviewUrl.Type;
export type PathStats = typeof PathStats.Type;
export type FileWritten = typeof FileWritten.Type;
export type TrashEntryView = typeof TrashEntryView.Type;
export type TrashList = typeof TrashList.Type;
export type TrashPurged = typeof TrashPurged.Type;

/** Workspace checkpoints (issue 29): the files at a record, one file, a diff, a restore. */
export const CheckpointEntry = Schema.Struct({
  path: Schema.String,
  kind: Schema.Literal("file", "symlink", "folder"),
  size: Schema.optional(Schema.Number),
  mode: Schema.optional(Schema.Number),
  hash: Schema.optional(Schema.String),
  target: Schema.optional(Schema.String),
  over: Schema.optional(Schema.Boolean),
});
export const CheckpointFiles = Schema.Struct({
  at: Schema.Number,
  checkpoint: Schema.Struct({ n: Schema.Number, position: Schema.String, tree: Schema.String, changed: Schema.Array(Schema.String) }),
  files: Schema.Array(CheckpointEntry),
});
export const CheckpointFile = Schema.Struct({ path: Schema.String, size: Schema.Number, encoding: Schema.Literal("utf8", "base64"), content: Schema.String });
/** `from`/`to` as asked: a record number, or a position `NNN:LLLLLL`. */
export const CheckpointDiff = Schema.Struct({ from: Schema.Union(Schema.Number, Schema.String), to: Schema.Union(Schema.Number, Schema.String), diff: Schema.String });
/** What changed at a record (or between two): the first changed paths with their diffs, and how many more. */
export const CheckpointChanges = Schema.Struct({
  at: Schema.Number,
  from: Schema.optional(Schema.Number),
  checkpoint: Schema.Struct({ n: Schema.Number, position: Schema.String, tree: Schema.String, changed: Schema.Array(Schema.String) }),
  total: Schema.Number,
  changes: Schema.Array(Schema.Struct({ path: Schema.String, diff: Schema.String })),
  more: Schema.Number,
});
export const FilesRestored = Schema.Struct({
  checkpointRecord: Schema.optional(Schema.Number),
  undoRecord: Schema.optional(Schema.Number),
  written: Schema.Array(Schema.String),
  removed: Schema.Array(Schema.String),
  notRestored: Schema.Array(Schema.Struct({ path: Schema.String, reason: Schema.String })),
});
