/**
 * The trash of deleted sessions (core's session-trash: `<root>/.trash/<project>/<agent>/…`).
 * `DELETE /api/sessions/:id` moves a session there; here a project owner (or the admin) lists
 * the project's trashed sessions and restores one, and the admin purges the trash for good
 * (the same as `penguin trash purge`). Restoring puts the files back byte for byte, the index
 * row back with the settings it had (title, approval mode, archive…), and the session into the
 * lists again; onto a session id that exists again it is refused (409 `already_exists`).
 */
import { findTrashEntry, listTrash, purgeTrash, restoreFromTrash, sessionTraceFiles, TrashError, type AgentPaths, type TrashEntry } from "@penguin/core";
import { Schema } from "effect";
import { ApiError, conflict, notFound } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { IntFromText } from "../http/schemas.js";
import type { SessionRow } from "../db/sessions-store.js";
import type { ServerContext } from "../server-context.js";
import { readSessionMeta } from "../services/trace-files.js";
import { sessionTraceInfo } from "../services/session-trace-info.js";
import { sessionView } from "../services/session-view.js";
import { SessionView, TrashList, TrashPurged } from "../contract/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;

function entryView(e: TrashEntry) {
  const m = e.manifest;
  // The title the session had when it was deleted (kept beside its index row in the entry).
  const title = (recordOf(e) as { title?: unknown } | undefined)?.title;
  return { id: e.id, sessionId: m.sessionId, agentId: m.agentId, title: typeof title === "string" ? title : null, deletedAt: m.deletedAt, deletedBy: m.deletedBy, traceFiles: m.traceFiles.filter((n) => n.endsWith(".jsonl")).length };
}

/** The index row kept in the entry, when it is one of this session's. */
function recordOf(e: TrashEntry): SessionRow | undefined {
  const r = e.manifest.record as Partial<SessionRow> | null;
  if (r === null || typeof r !== "object" || r.sessionId !== e.manifest.sessionId || r.projectId !== e.manifest.projectId || r.agentId !== e.manifest.agentId) return undefined;
  return r as SessionRow;
}

export function trashRoutes(table: RouteTable, ctx: ServerContext): void {
  const { stores } = ctx;

  /** Indexes a restored session: its kept row, or (an entry without one) its trace header, as the start-up scan would. */
  const reindex = (entry: TrashEntry, agent: AgentPaths): void => {
    const record = recordOf(entry);
    if (record !== undefined) return stores.sessions.restore(record);
    const first = sessionTraceFiles(agent, entry.manifest.sessionId)[0];
    const meta = first === undefined ? undefined : readSessionMeta(first.file);
    if (meta === undefined) throw new ApiError(500, "internal", `the restored session ${entry.manifest.sessionId} has no readable trace header; its files are back in ${agent.tracesDir}`);
    stores.sessions.upsertFromTrace({ sessionId: meta.session_id, projectId: agent.projectId, agentId: agent.agentId, provider: meta.provider, modelId: meta.model_id, workspace: meta.workspace, createdAt: entry.manifest.deletedAt });
  };

  table.add(
    { method: "get", path: "/api/projects/:p/trash", operationId: "trash.list", summary: "The project's deleted sessions, most recently deleted first", tag: "sessions", access: "project", need: "owner", responses: { 200: { description: "{sessions: [{id, sessionId, agentId, title, deletedAt, deletedBy, traceFiles}]}", schema: TrashList } } },
    ({ grant }) => json({ sessions: listTrash(ctx.root, grant.project.projectId).map(entryView) }),
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/trash/:entry/restore",
      operationId: "trash.restore",
      summary: "Restore a deleted session (its traces, scratchpad and settings)",
      tag: "sessions",
      access: "project",
      need: "owner",
      params: Schema.Struct({ entry: Schema.String }),
      responses: { 200: { description: "The restored session", schema: SessionView }, 409: { description: "already_exists: the session exists again; session_unavailable: its agent is gone" } },
    },
    async ({ grant, params }) => {
      const entry = findTrashEntry(ctx.root, grant.project.projectId, params.entry);
      if (entry === undefined) throw notFound(`trash entry ${params.entry}`);
      const sessionId = entry.manifest.sessionId;
      if (stores.sessions.get(sessionId) !== undefined) {
        throw conflict("already_exists", `session ${sessionId} exists again; restoring would overwrite it. Delete that session first, or keep ${entry.id} in the trash`);
      }
      let agent: AgentPaths;
      try {
        agent = restoreFromTrash(ctx.root, entry);
      } catch (error) {
        if (error instanceof TrashError) throw conflict(error.code === "session_exists" ? "already_exists" : "session_unavailable", error.message);
        throw error;
      }
      reindex(entry, agent);
      const row = stores.sessions.get(sessionId);
      if (row === undefined) throw new Error(`restored session ${sessionId} was not indexed`);
      // The projections follow the files back (the same bytes at the same path: nothing to re-apply).
      await ctx.projections.refresh();
      const view = sessionView(row, undefined, (await sessionTraceInfo(ctx.projections, agent, [sessionId], ctx.report)).get(sessionId), ctx.access.createdHere(sessionId));
      ctx.userEvents.toProject(row.projectId, { type: "session_created", session: view });
      return json(view);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/admin/trash/purge",
      operationId: "trash.purge",
      summary: "Delete trashed sessions for good: all, or those deleted more than olderThanDays ago",
      tag: "admin",
      access: "admin",
      query: Schema.Struct({ olderThanDays: Schema.optional(IntFromText(0, 36500)) }),
      responses: { 200: { description: "{purged: [{id, projectId, agentId, deletedAt}], kept}", schema: TrashPurged } },
    },
    ({ query }) => json(purgeTrash(ctx.root, { now: ctx.now(), ...(query.olderThanDays === undefined ? {} : { olderThanMs: query.olderThanDays * DAY_MS }) })),
  );
}
