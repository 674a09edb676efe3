/**
 * A session's workspace at any record (issue 29), read from its checkpoints, never from the
 * workspace on disk: the routes serve what the agent's checkpoint store holds for the tree in
 * force at the record. Paths are confined like every file route (services/confined-path.ts:
 * no `..`, nothing absolute) and secret names are refused. Restoring writes the session's
 * workspace, so it needs control of the session (its creator, a project owner, the admin).
 *
 *   GET  checkpoints/files?at=           every path at the record, and what its checkpoint changed
 *   GET  checkpoints/file?at=&path=      one file's bytes at the record (UTF-8 or base64, ≤ 2 MB)
 *   GET  checkpoints/diff?from=&to=[&path=]   a unified diff between two records
 *   GET  checkpoints/changes?at=[&from=&diffs=]  the paths changed at a record (since `from`, default the
 *        record before), the first `diffs` (default 20, at most 100) with their diffs: one request per cursor move
 *   POST checkpoints/restore {at, force?}     restore the files in place (undoable)
 */
import { basename } from "node:path";
import { Schema } from "effect";
import { changesAt, diffFilesBetween, fileAt, filesAt, isPenguinError, OutsideChangesError } from "@penguin/core";
import { Text } from "../http/schemas.js";
import { ApiError, badRequest, conflict } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { checkRelative } from "../services/confined-path.js";
import { isSecretName, refuseSecret } from "../services/workspace-roots.js";
import { CheckpointChanges, CheckpointDiff, CheckpointFile, CheckpointFiles, FilesRestored } from "../contract/index.js";

const MAX_JSON_READ = 2 * 1024 * 1024;
const DEFAULT_DIFFS = 20;
const MAX_DIFFS = 100;
const DiffCount = Schema.String.pipe(Schema.pattern(/^\d{1,3}$/));
const Record = Schema.Union(Schema.String.pipe(Schema.pattern(/^(\d+|\d{3}:\d{6})$/)));
const recordOf = (value: string): number | string => (/^\d+$/.test(value) ? Number(value) : value);

/** A core refusal as the API says it: a record without checkpoint is a bad request, a held session a conflict. */
function answerRefusal(error: unknown, field: string): never {
  if (error instanceof OutsideChangesError) throw new ApiError(409, "outside_changes", error.message);
  if (isPenguinError(error) && error.code === "session_busy") throw conflict("session_busy", error.message);
  if (isPenguinError(error) && (error.code === "invalid_argument" || error.code === "session_not_found")) throw badRequest(error.message, field);
  throw error;
}

/** The workspace path, confined: relative, no `..`, no secret name. */
function confined(path: string): string {
  const segments = checkRelative(path);
  if (segments.length === 0) throw new ApiError(400, "invalid_path", "the path names no file", { field: "path" });
  const normal = segments.join("/");
  refuseSecret(normal);
  return normal;
}

export function sessionCheckpointRoutes(table: RouteTable, ctx: ServerContext): void {
  const agentOf = async (grant: { session: { projectId: string; agentId: string } }) => ctx.sessions.agent(grant.session.projectId, grant.session.agentId);

  table.add(
    { method: "get", path: "/api/sessions/:id/checkpoints/files", operationId: "checkpoints.files", summary: "The workspace's files at a record, from its checkpoints", tag: "files", access: "session", query: Schema.Struct({ at: Schema.optional(Record) }), responses: { 200: { description: "{at, checkpoint, files}", schema: CheckpointFiles }, 400: { description: "no checkpoint at that record" } } },
    async ({ grant, query }) => {
      const agent = await agentOf(grant);
      try {
        const found = filesAt(agent.paths, grant.session.sessionId, query.at === undefined ? undefined : recordOf(query.at));
        const payload = found.checkpoint.message.payload;
        const files = [...found.tree].map(([path, e]) => ({ path, ...e, ...(e.kind === "file" && e.over === true ? { over: true } : {}) }));
        return json({ at: found.record.n, checkpoint: { n: found.checkpoint.n, position: found.checkpoint.position, tree: payload.tree, changed: payload.changed }, files });
      } catch (error) {
        answerRefusal(error, "at");
      }
    },
  );

  table.add(
    { method: "get", path: "/api/sessions/:id/checkpoints/file", operationId: "checkpoints.file", summary: "One workspace file at a record, from its checkpoints", tag: "files", access: "session", query: Schema.Struct({ at: Schema.optional(Record), path: Text(1) }), responses: { 200: { description: "{path, size, encoding, content}", schema: CheckpointFile }, 400: { description: "a path outside the workspace, or not a file there" } } },
    async ({ grant, query }) => {
      const path = confined(query.path);
      const agent = await agentOf(grant);
      try {
        const read = fileAt(agent.paths, grant.session.sessionId, query.at === undefined ? undefined : recordOf(query.at), path);
        if (read.bytes === undefined) throw badRequest(read.entry.kind === "file" ? `${path} was above the checkpoint size limit: recorded by hash and size only` : `${path} is a ${read.entry.kind} at that record`, "path");
        if (read.bytes.length > MAX_JSON_READ) throw new ApiError(413, "payload_too_large", "the file is too large to serve as JSON");
        const text = read.bytes.toString("utf8");
        const utf8 = !read.bytes.includes(0) && Buffer.from(text, "utf8").equals(read.bytes);
        return json({ path, size: read.bytes.length, encoding: utf8 ? "utf8" : "base64", content: utf8 ? text : read.bytes.toString("base64") }, 200, { "x-content-type-options": "nosniff" });
      } catch (error) {
        if (error instanceof ApiError) throw error;
        answerRefusal(error, "path");
      }
    },
  );

  table.add(
    { method: "get", path: "/api/sessions/:id/checkpoints/diff", operationId: "checkpoints.diff", summary: "A unified diff of the workspace between two records", tag: "files", access: "session", query: Schema.Struct({ from: Record, to: Record, path: Schema.optional(Schema.String) }), responses: { 200: { description: "{from, to, diff}", schema: CheckpointDiff }, 400: { description: "no checkpoint at a record, or a path outside the workspace" } } },
    async ({ grant, query }) => {
      const path = query.path === undefined || query.path === "" ? undefined : confined(query.path);
      const agent = await agentOf(grant);
      try {
        const diff = diffFilesBetween(agent.paths, grant.session.sessionId, recordOf(query.from), recordOf(query.to), path, (p) => isSecretName(basename(p)));
        return json({ from: recordOf(query.from), to: recordOf(query.to), diff });
      } catch (error) {
        answerRefusal(error, "from");
      }
    },
  );

  table.add(
    { method: "get", path: "/api/sessions/:id/checkpoints/changes", operationId: "checkpoints.changes", summary: "The paths changed at a record (or since another), with the diffs of the first ones", tag: "files", access: "session", query: Schema.Struct({ at: Schema.optional(Record), from: Schema.optional(Record), diffs: Schema.optional(DiffCount) }), responses: { 200: { description: "{at, from, checkpoint, total, changes, more}", schema: CheckpointChanges }, 400: { description: "no checkpoint at that record, or more diffs asked than served" } } },
    async ({ grant, query }) => {
      const diffs = query.diffs === undefined ? DEFAULT_DIFFS : Number(query.diffs);
      if (diffs > MAX_DIFFS) throw badRequest(`diffs is ${diffs}: at most ${MAX_DIFFS} diffs are served per request; ask for fewer`, "diffs");
      const agent = await agentOf(grant);
      try {
        const found = changesAt(agent.paths, grant.session.sessionId, query.at === undefined ? undefined : recordOf(query.at), query.from === undefined ? undefined : recordOf(query.from), diffs);
        // A secret file is named (it changed) but its contents are never served, as by the file route.
        const changes = found.changes.map((c) => (isSecretName(basename(c.path)) ? { path: c.path, diff: `${c.path} holds secrets: its contents are never served through the API\n` } : c));
        return json({ at: found.at, ...(found.from === undefined ? {} : { from: found.from }), checkpoint: found.checkpoint, total: found.total, changes, more: found.more });
      } catch (error) {
        answerRefusal(error, "at");
      }
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/sessions/:id/checkpoints/restore",
      operationId: "checkpoints.restore",
      summary: "Restore the workspace's files to a record, in place (undoable: the answer names the record to restore for undoing it)",
      tag: "files",
      access: "session",
      need: "control",
      body: Schema.Struct({ at: Schema.Union(Schema.Number, Record), force: Schema.optional(Schema.Boolean) }),
      responses: { 200: { description: "what was written, removed and left", schema: FilesRestored }, 400: { description: "no checkpoint at that record" }, 409: { description: "a task is running, or the workspace holds changes made outside the session (force records and restores anyway)" } },
    },
    async ({ grant, body }) => {
      try {
        const result = await ctx.sessions.restoreFiles(grant.session, typeof body.at === "number" ? body.at : recordOf(body.at), body.force === true);
        const files = result.files ?? { written: [], removed: [], notRestored: [] };
        return json({ ...(result.checkpointRecord === undefined ? {} : { checkpointRecord: result.checkpointRecord }), ...(result.undoRecord === undefined ? {} : { undoRecord: result.undoRecord }), written: files.written, removed: files.removed, notRestored: files.notRestored });
      } catch (error) {
        if (error instanceof ApiError) throw error;
        answerRefusal(error, "at");
      }
    },
  );
}
