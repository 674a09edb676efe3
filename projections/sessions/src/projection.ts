/**
 * The `sessions` projection: one row per session (fold.ts says what each column means), and
 * `sessions_links`, one row per subagent pointer (child → parent). Queries join the two.
 */
import type { Kysely } from "kysely";
import type { Projection, TraceEvent } from "@penguin/projections-runner";
import { foldSession, foldSessionInto, type SessionRow } from "./fold.js";

export interface SessionLinkRow {
  child_session_id: string;
  parent_session_id: string;
}

export interface SessionsTables {
  sessions: SessionRow;
  sessions_links: SessionLinkRow;
}

const INSERT_CHUNK = 200;

export const sessionsProjection: Projection<SessionsTables> = {
  name: "sessions",
  // 3: session facts (settings, archive time, network, goal, queued follow-ups) joined the row.
  // 4: the program that created the session (session_meta `client`).
  version: 4,
  handles: ["session_meta", "text", "tool_call", "request_begin", "request_end", "abort", "token_usage", "subagent", "session_title", "session_archived", "forked_from", "settings_changed", "goal_started", "goal_finished", "followup_queued", "followup_dequeued"],
  // A parallel rebuild imports it from here in its worker threads.
  source: { module: import.meta.url, exportName: "sessionsProjection" },
  async migrate(db) {
    await db.schema
      .createTable("sessions")
      .addColumn("session_id", "text", (c) => c.primaryKey())
      .addColumn("project_id", "text", (c) => c.notNull())
      .addColumn("agent_id", "text", (c) => c.notNull())
      .addColumn("title", "text")
      .addColumn("title_set", "integer", (c) => c.notNull())
      .addColumn("archived", "integer", (c) => c.notNull())
      .addColumn("archived_at", "integer")
      .addColumn("approval_mode", "text")
      .addColumn("thinking_level", "text")
      .addColumn("sandbox_network", "integer", (c) => c.notNull())
      .addColumn("goal_objective", "text")
      .addColumn("goal_budget", "integer")
      .addColumn("goal_started_at", "integer")
      .addColumn("goal_status", "text")
      .addColumn("goal_rounds", "integer")
      .addColumn("goal_tokens_used", "integer")
      .addColumn("goal_updated_at", "integer")
      .addColumn("followups_pending", "integer", (c) => c.notNull())
      .addColumn("forked_from", "text")
      .addColumn("provider", "text")
      .addColumn("model_id", "text")
      .addColumn("workspace", "text")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("client", "text")
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("last_event_at", "integer", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("tasks", "integer", (c) => c.notNull())
      .addColumn("requests", "integer", (c) => c.notNull())
      .addColumn("tool_calls", "integer", (c) => c.notNull())
      .addColumn("tokens", "integer", (c) => c.notNull())
      .addColumn("files", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("sessions_by_agent").on("sessions").columns(["project_id", "agent_id", "last_event_at"]).execute();
    await db.schema
      .createTable("sessions_links")
      .addColumn("child_session_id", "text", (c) => c.primaryKey())
      .addColumn("parent_session_id", "text", (c) => c.notNull())
      .execute();
  },
  async apply(batch, db) {
    const ids = [...new Set(batch.map((e) => e.sessionId))];
    const rows = new Map<string, SessionRow>();
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      const found = await db.selectFrom("sessions").selectAll().where("session_id", "in", ids.slice(i, i + INSERT_CHUNK)).execute();
      for (const r of found) rows.set(r.session_id, r);
    }
    const links: SessionLinkRow[] = [];
    for (const e of batch) {
      // Rows read from the database are this batch's own objects: fold into them in place.
      const row = rows.get(e.sessionId);
      if (row === undefined) rows.set(e.sessionId, foldSession(undefined, e));
      else foldSessionInto(row, e);
      const link = linkOf(e);
      if (link !== undefined) links.push(link);
    }
    const all = [...rows.values()];
    for (let i = 0; i < all.length; i += INSERT_CHUNK) {
      await db
        .insertInto("sessions")
        .values(all.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) =>
          oc.column("session_id").doUpdateSet((eb) => ({
            title: eb.ref("excluded.title"),
            title_set: eb.ref("excluded.title_set"),
            archived: eb.ref("excluded.archived"),
            archived_at: eb.ref("excluded.archived_at"),
            approval_mode: eb.ref("excluded.approval_mode"),
            thinking_level: eb.ref("excluded.thinking_level"),
            sandbox_network: eb.ref("excluded.sandbox_network"),
            goal_objective: eb.ref("excluded.goal_objective"),
            goal_budget: eb.ref("excluded.goal_budget"),
            goal_started_at: eb.ref("excluded.goal_started_at"),
            goal_status: eb.ref("excluded.goal_status"),
            goal_rounds: eb.ref("excluded.goal_rounds"),
            goal_tokens_used: eb.ref("excluded.goal_tokens_used"),
            goal_updated_at: eb.ref("excluded.goal_updated_at"),
            followups_pending: eb.ref("excluded.followups_pending"),
            forked_from: eb.ref("excluded.forked_from"),
            provider: eb.ref("excluded.provider"),
            model_id: eb.ref("excluded.model_id"),
            workspace: eb.ref("excluded.workspace"),
            source: eb.ref("excluded.source"),
            client: eb.ref("excluded.client"),
            created_at: eb.ref("excluded.created_at"),
            last_event_at: eb.ref("excluded.last_event_at"),
            status: eb.ref("excluded.status"),
            tasks: eb.ref("excluded.tasks"),
            requests: eb.ref("excluded.requests"),
            tool_calls: eb.ref("excluded.tool_calls"),
            tokens: eb.ref("excluded.tokens"),
            files: eb.ref("excluded.files"),
          })),
        )
        .execute();
    }
    for (const link of links) {
      await db.insertInto("sessions_links").values(link).onConflict((oc) => oc.column("child_session_id").doUpdateSet({ parent_session_id: link.parent_session_id })).execute();
    }
  },
};

function linkOf(e: TraceEvent): SessionLinkRow | undefined {
  const m = e.message;
  if (m.type !== "event_msg" || m.payload.type !== "subagent") return undefined;
  return { child_session_id: m.payload.session_id, parent_session_id: e.sessionId };
}

export type SessionsDb = Kysely<SessionsTables>;
