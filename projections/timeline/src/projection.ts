/**
 * The `timeline` projection: what the trace viewer draws for a session, without re-reading
 * its JSONL on every request.
 *
 * - `timeline_events`: the position (file index, line) of every event, with its time and kind.
 * - `timeline_requests`: one row per LLM request, at its `request_begin`: begin and end time,
 *   duration, status, attempt and error, and from the `token_usage` that follows a completed
 *   request the context size (prompt tokens: cached + uncached), cached and output tokens.
 * - `timeline_tool_calls`: one row per tool call, from the call to its output: duration and
 *   status (`completed` unless the output says otherwise).
 * - `timeline_compactions`: one row per compaction, from begin to end.
 * - `timeline_subagents`: the subagent pointers (where a child session was spawned).
 *
 * An end event pairs with the latest open row of the same session, which is how the engine
 * writes them (one request at a time; tool calls by id). Durations are event-time differences.
 */
import type { Kysely } from "kysely";
import type { Projection, TraceEvent } from "@penguin/projections-runner";

export interface TimelineEventRow {
  session_id: string;
  file_index: number;
  line: number;
  ts: number;
  kind: string;
}

export interface TimelineRequestRow {
  session_id: string;
  file_index: number;
  line: number;
  begin_ts: number;
  end_ts: number | null;
  duration_ms: number | null;
  status: string | null;
  attempt: number | null;
  error_message: string | null;
  context_tokens: number | null;
  cached_tokens: number | null;
  output_tokens: number | null;
}

export interface TimelineToolCallRow {
  session_id: string;
  tool_call_id: string;
  file_index: number;
  line: number;
  name: string;
  begin_ts: number;
  end_ts: number | null;
  duration_ms: number | null;
  status: string | null;
}

export interface TimelineCompactionRow {
  session_id: string;
  file_index: number;
  line: number;
  begin_ts: number;
  reason: string;
  mode: string;
  context_tokens: number;
  end_ts: number | null;
  duration_ms: number | null;
  status: string | null;
}

export interface TimelineSubagentRow {
  session_id: string;
  file_index: number;
  line: number;
  ts: number;
  child_session_id: string;
}

export interface TimelineTables {
  timeline_events: TimelineEventRow;
  timeline_requests: TimelineRequestRow;
  timeline_tool_calls: TimelineToolCallRow;
  timeline_compactions: TimelineCompactionRow;
  timeline_subagents: TimelineSubagentRow;
}

const INSERT_CHUNK = 400;

async function latestOpen(db: Kysely<TimelineTables>, table: "timeline_requests" | "timeline_compactions", sessionId: string) {
  return db
    .selectFrom(table)
    .select(["file_index", "line", "begin_ts"])
    .where("session_id", "=", sessionId)
    .where("end_ts", "is", null)
    .orderBy("file_index", "desc")
    .orderBy("line", "desc")
    .limit(1)
    .executeTakeFirst();
}

async function applyOne(db: Kysely<TimelineTables>, e: TraceEvent): Promise<void> {
  const m = e.message;
  const at = { session_id: e.sessionId, file_index: e.fileIndex, line: e.line };
  if (m.type === "model_msg") {
    const p = m.payload;
    if (p.type === "tool_call") {
      await db
        .insertInto("timeline_tool_calls")
        .values({ ...at, tool_call_id: p.tool_call_id, name: p.name, begin_ts: e.ts, end_ts: null, duration_ms: null, status: null })
        .onConflict((oc) => oc.columns(["session_id", "tool_call_id"]).doNothing())
        .execute();
    } else if (p.type === "tool_call_output") {
      const call = await db.selectFrom("timeline_tool_calls").select("begin_ts").where("session_id", "=", e.sessionId).where("tool_call_id", "=", p.tool_call_id).executeTakeFirst();
      if (call !== undefined) {
        await db
          .updateTable("timeline_tool_calls")
          .set({ end_ts: e.ts, duration_ms: Math.max(0, e.ts - Number(call.begin_ts)), status: p.stop_reason ?? "completed" })
          .where("session_id", "=", e.sessionId)
          .where("tool_call_id", "=", p.tool_call_id)
          .execute();
      }
    }
    return;
  }
  if (m.type !== "event_msg") return;
  const p = m.payload;
  switch (p.type) {
    case "request_begin":
      await db
        .insertInto("timeline_requests")
        .values({ ...at, begin_ts: e.ts, end_ts: null, duration_ms: null, status: null, attempt: null, error_message: null, context_tokens: null, cached_tokens: null, output_tokens: null })
        .execute();
      return;
    case "request_end": {
      const open = await latestOpen(db, "timeline_requests", e.sessionId);
      if (open === undefined) return;
      await db
        .updateTable("timeline_requests")
        .set({ end_ts: e.ts, duration_ms: Math.max(0, e.ts - Number(open.begin_ts)), status: p.status, attempt: p.attempt ?? null, error_message: p.error_message ?? null })
        .where("session_id", "=", e.sessionId)
        .where("file_index", "=", open.file_index)
        .where("line", "=", open.line)
        .execute();
      return;
    }
    case "token_usage": {
      const last = await db
        .selectFrom("timeline_requests")
        .select(["file_index", "line"])
        .where("session_id", "=", e.sessionId)
        .where("status", "=", "completed")
        .where("context_tokens", "is", null)
        .orderBy("file_index", "desc")
        .orderBy("line", "desc")
        .limit(1)
        .executeTakeFirst();
      if (last === undefined) return;
      await db
        .updateTable("timeline_requests")
        .set({ context_tokens: p.request.cache_read + p.request.cache_write, cached_tokens: p.request.cache_read, output_tokens: p.request.output })
        .where("session_id", "=", e.sessionId)
        .where("file_index", "=", last.file_index)
        .where("line", "=", last.line)
        .execute();
      return;
    }
    case "compaction_begin":
      await db
        .insertInto("timeline_compactions")
        .values({ ...at, begin_ts: e.ts, reason: p.reason, mode: p.mode, context_tokens: p.context, end_ts: null, duration_ms: null, status: null })
        .execute();
      return;
    case "compaction_end": {
      const open = await latestOpen(db, "timeline_compactions", e.sessionId);
      if (open === undefined) return;
      await db
        .updateTable("timeline_compactions")
        .set({ end_ts: e.ts, duration_ms: Math.max(0, e.ts - Number(open.begin_ts)), status: p.status })
        .where("session_id", "=", e.sessionId)
        .where("file_index", "=", open.file_index)
        .where("line", "=", open.line)
        .execute();
      return;
    }
    case "subagent":
      await db.insertInto("timeline_subagents").values({ ...at, ts: e.ts, child_session_id: p.session_id }).execute();
      return;
    default:
      return;
  }
}

export const timelineProjection: Projection<TimelineTables> = {
  name: "timeline",
  version: 1,
  handles: [],
  async migrate(db) {
    const positioned = (name: keyof TimelineTables) =>
      db.schema
        .createTable(name)
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("file_index", "integer", (c) => c.notNull())
        .addColumn("line", "integer", (c) => c.notNull());
    await positioned("timeline_events")
      .addColumn("ts", "integer", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("timeline_events_pk", ["session_id", "file_index", "line"])
      .execute();
    await positioned("timeline_requests")
      .addColumn("begin_ts", "integer", (c) => c.notNull())
      .addColumn("end_ts", "integer")
      .addColumn("duration_ms", "integer")
      .addColumn("status", "text")
      .addColumn("attempt", "integer")
      .addColumn("error_message", "text")
      .addColumn("context_tokens", "integer")
      .addColumn("cached_tokens", "integer")
      .addColumn("output_tokens", "integer")
      .addPrimaryKeyConstraint("timeline_requests_pk", ["session_id", "file_index", "line"])
      .execute();
    await positioned("timeline_tool_calls")
      .addColumn("tool_call_id", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("begin_ts", "integer", (c) => c.notNull())
      .addColumn("end_ts", "integer")
      .addColumn("duration_ms", "integer")
      .addColumn("status", "text")
      .addPrimaryKeyConstraint("timeline_tool_calls_pk", ["session_id", "tool_call_id"])
      .execute();
    await positioned("timeline_compactions")
      .addColumn("begin_ts", "integer", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("mode", "text", (c) => c.notNull())
      .addColumn("context_tokens", "integer", (c) => c.notNull())
      .addColumn("end_ts", "integer")
      .addColumn("duration_ms", "integer")
      .addColumn("status", "text")
      .addPrimaryKeyConstraint("timeline_compactions_pk", ["session_id", "file_index", "line"])
      .execute();
    await positioned("timeline_subagents")
      .addColumn("ts", "integer", (c) => c.notNull())
      .addColumn("child_session_id", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("timeline_subagents_pk", ["session_id", "file_index", "line"])
      .execute();
  },
  async apply(batch, db) {
    const events = batch.map((e) => ({ session_id: e.sessionId, file_index: e.fileIndex, line: e.line, ts: e.ts, kind: e.kind }));
    for (let i = 0; i < events.length; i += INSERT_CHUNK) await db.insertInto("timeline_events").values(events.slice(i, i + INSERT_CHUNK)).execute();
    for (const e of batch) await applyOne(db, e);
  },
};
