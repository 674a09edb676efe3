/**
 * The `timeline` projection: what the trace viewer draws for a session, without re-reading
 * its JSONL on every request.
 *
 * - `timeline_event_blocks`: the position (file index, line) of every event, with its time and
 *   kind, in blocks of lines (event-blocks.ts; `sessionEvents` unpacks them).
 * - `timeline_requests`: one row per LLM request, at its `request_begin`: begin and end time,
 *   duration, status, attempt and error, and from the `token_usage` that follows a completed
 *   request the context size (prompt tokens: cached + uncached), cached and output tokens.
 * - `timeline_tool_calls`: one row per tool call, from the call to its output: duration and
 *   status (`completed` unless the output says otherwise).
 * - `timeline_compactions`: one row per compaction, from begin to end.
 * - `timeline_subagents`: the subagent pointers (where a child session was spawned).
 * - `timeline_snapshots`, `timeline_state_chunks`, `timeline_fold_heads`: the time-travel fold
 *   every SNAPSHOT_EVERY events (snapshots.ts), for `stateAt` at any position.
 * - `timeline_analysis`: the trace viewer's statistics per session (analysis.ts).
 *
 * An end event pairs with the latest open row of the same session, which is how the engine
 * writes them (one request at a time; tool calls by id). Durations are event-time differences.
 */
import { sql, type Kysely } from "kysely";
import type { Projection, RowWriter, TraceEvent } from "@penguin/projections-runner";
import { applyAnalysis, migrateAnalysisTable, type AnalysisTables } from "./analysis.js";
import { applyEventBlocks, migrateEventBlocks, type EventBlockTables } from "./event-blocks.js";
import { applySnapshots, migrateSnapshotTables, type SnapshotTables } from "./snapshots.js";

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

export interface TimelineTables extends SnapshotTables, AnalysisTables, EventBlockTables {
  timeline_requests: TimelineRequestRow;
  timeline_tool_calls: TimelineToolCallRow;
  timeline_compactions: TimelineCompactionRow;
  timeline_subagents: TimelineSubagentRow;
}

const INSERT_CHUNK = 400;

type Key = string;
const keyOf = (sessionId: string, fileIndex: number, line: number): Key => `${sessionId}\u0000${fileIndex}\u0000${line}`;

/**
 * One batch folded in memory: the rows a batch opens are built complete where the batch also
 * closes them, and written once. Rows still open from earlier batches (an unfinished request,
 * tool call or compaction, a completed request waiting for its usage) are loaded first and
 * updated at the end. The result is the same as applying the events one by one.
 */
class TimelineBatch {
  readonly inserts = { requests: new Map<Key, TimelineRequestRow>(), toolCalls: new Map<Key, TimelineToolCallRow>(), compactions: new Map<Key, TimelineCompactionRow>() };
  readonly updates = { requests: new Map<Key, TimelineRequestRow>(), toolCalls: new Map<Key, TimelineToolCallRow>(), compactions: new Map<Key, TimelineCompactionRow>() };
  readonly subagents: TimelineSubagentRow[] = [];
  /** Per session, in position order: open requests, completed requests without usage, open compactions. */
  readonly openRequests = new Map<string, TimelineRequestRow[]>();
  readonly awaitingUsage = new Map<string, TimelineRequestRow[]>();
  readonly openCompactions = new Map<string, TimelineCompactionRow[]>();
  /** Tool calls by (session, id): the first call with an id owns it, as the unique key says. */
  readonly toolCalls = new Map<Key, TimelineToolCallRow>();

  static async load(db: Kysely<TimelineTables>, batch: readonly TraceEvent[]): Promise<TimelineBatch> {
    const b = new TimelineBatch();
    const sessions = [...new Set(batch.map((e) => e.sessionId))];
    // The calls of earlier batches this batch's outputs may end, looked up only in the sessions
    // that have any: a session new to the database (every session, once, in a rebuild) has
    // none, and asking for its outputs' ids cost a query of hundreds of keys per batch.
    const withCalls = new Set<string>();
    for (const sessionId of sessions) {
      if ((await db.selectFrom("timeline_tool_calls").select("session_id").where("session_id", "=", sessionId).limit(1).executeTakeFirst()) !== undefined) withCalls.add(sessionId);
    }
    const callIds = new Set<string>();
    for (const e of batch) if (e.message.type === "model_msg" && e.message.payload.type === "tool_call_output" && withCalls.has(e.sessionId)) callIds.add(e.message.payload.tool_call_id);
    for (let i = 0; i < sessions.length; i += INSERT_CHUNK) {
      const some = sessions.slice(i, i + INSERT_CHUNK);
      const requests = await db
        .selectFrom("timeline_requests")
        .selectAll()
        .where("session_id", "in", some)
        .where((eb) => eb.or([eb("end_ts", "is", null), eb.and([eb("status", "=", "completed"), eb("context_tokens", "is", null)])]))
        .orderBy("file_index")
        .orderBy("line")
        .execute();
      for (const r of requests) push(r.end_ts === null ? b.openRequests : b.awaitingUsage, r.session_id, r);
      const compactions = await db.selectFrom("timeline_compactions").selectAll().where("session_id", "in", some).where("end_ts", "is", null).orderBy("file_index").orderBy("line").execute();
      for (const c of compactions) push(b.openCompactions, c.session_id, c);
    }
    const ids = [...callIds];
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      const calls = await db.selectFrom("timeline_tool_calls").selectAll().where("session_id", "in", [...withCalls]).where("tool_call_id", "in", ids.slice(i, i + INSERT_CHUNK)).execute();
      for (const c of calls) b.toolCalls.set(`${c.session_id}\u0000${c.tool_call_id}`, c);
    }
    return b;
  }


  apply(e: TraceEvent): void {
    // Rows are written as whole object literals, never `{ ...spread, more }`: V8 defines the
    // properties after a spread one by one through a slow path and can leave the row a
    // dictionary object, which costs here, again when the row writer reads it, and in GC.
    const m = e.message;
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "tool_call") {
        const id = `${e.sessionId}\u0000${p.tool_call_id}`;
        if (this.toolCalls.has(id)) return;
        const row: TimelineToolCallRow = { session_id: e.sessionId, file_index: e.fileIndex, line: e.line, tool_call_id: p.tool_call_id, name: p.name, begin_ts: e.ts, end_ts: null, duration_ms: null, status: null };
        this.toolCalls.set(id, row);
        this.inserts.toolCalls.set(keyOf(row.session_id, row.file_index, row.line), row);
      } else if (p.type === "tool_call_output") {
        const call = this.toolCalls.get(`${e.sessionId}\u0000${p.tool_call_id}`);
        if (call === undefined) return;
        call.end_ts = e.ts;
        call.duration_ms = Math.max(0, e.ts - Number(call.begin_ts));
        call.status = p.stop_reason ?? "completed";
        touch(this.inserts.toolCalls, this.updates.toolCalls, call);
      }
      return;
    }
    if (m.type !== "event_msg") return;
    const p = m.payload;
    switch (p.type) {
      case "request_begin": {
        const row: TimelineRequestRow = { session_id: e.sessionId, file_index: e.fileIndex, line: e.line, begin_ts: e.ts, end_ts: null, duration_ms: null, status: null, attempt: null, error_message: null, context_tokens: null, cached_tokens: null, output_tokens: null };
        this.inserts.requests.set(keyOf(row.session_id, row.file_index, row.line), row);
        push(this.openRequests, e.sessionId, row);
        return;
      }
      case "request_end": {
        const open = this.openRequests.get(e.sessionId)?.pop();
        if (open === undefined) return;
        open.end_ts = e.ts;
        open.duration_ms = Math.max(0, e.ts - Number(open.begin_ts));
        open.status = p.status;
        open.attempt = p.attempt ?? null;
        open.error_message = p.error_message ?? null;
        if (p.status === "completed") insertInOrder(this.awaitingUsage, e.sessionId, open);
        touch(this.inserts.requests, this.updates.requests, open);
        return;
      }
      case "token_usage": {
        const last = this.awaitingUsage.get(e.sessionId)?.pop();
        if (last === undefined) return;
        last.context_tokens = p.request.cache_read + p.request.cache_write;
        last.cached_tokens = p.request.cache_read;
        last.output_tokens = p.request.output;
        touch(this.inserts.requests, this.updates.requests, last);
        return;
      }
      case "compaction_begin": {
        const row: TimelineCompactionRow = { session_id: e.sessionId, file_index: e.fileIndex, line: e.line, begin_ts: e.ts, reason: p.reason, mode: p.mode, context_tokens: p.context, end_ts: null, duration_ms: null, status: null };
        this.inserts.compactions.set(keyOf(row.session_id, row.file_index, row.line), row);
        push(this.openCompactions, e.sessionId, row);
        return;
      }
      case "compaction_end": {
        const open = this.openCompactions.get(e.sessionId)?.pop();
        if (open === undefined) return;
        open.end_ts = e.ts;
        open.duration_ms = Math.max(0, e.ts - Number(open.begin_ts));
        open.status = p.status;
        touch(this.inserts.compactions, this.updates.compactions, open);
        return;
      }
      case "subagent":
        this.subagents.push({ session_id: e.sessionId, file_index: e.fileIndex, line: e.line, ts: e.ts, child_session_id: p.session_id });
        return;
      default:
        return;
    }
  }

  async write(db: Kysely<TimelineTables>, rows: RowWriter): Promise<void> {
    await rows.insert("timeline_requests", [...this.inserts.requests.values()]);
    await rows.insert("timeline_tool_calls", [...this.inserts.toolCalls.values()]);
    await rows.insert("timeline_compactions", [...this.inserts.compactions.values()]);
    await rows.insert("timeline_subagents", this.subagents);
    for (const r of this.updates.requests.values()) {
      const { session_id, file_index, line, ...set } = r;
      await db.updateTable("timeline_requests").set(set).where("session_id", "=", session_id).where("file_index", "=", file_index).where("line", "=", line).execute();
    }
    for (const r of this.updates.toolCalls.values()) {
      await db.updateTable("timeline_tool_calls").set({ end_ts: r.end_ts, duration_ms: r.duration_ms, status: r.status }).where("session_id", "=", r.session_id).where("tool_call_id", "=", r.tool_call_id).execute();
    }
    for (const r of this.updates.compactions.values()) {
      const { session_id, file_index, line, ...set } = r;
      await db.updateTable("timeline_compactions").set(set).where("session_id", "=", session_id).where("file_index", "=", file_index).where("line", "=", line).execute();
    }
  }
}

/** Marks a row changed: a row this batch opened is inserted as it ends up; one from an earlier batch is updated. */
function touch<T extends { session_id: string; file_index: number; line: number }>(inserts: Map<Key, T>, updates: Map<Key, T>, row: T): void {
  const key = keyOf(row.session_id, row.file_index, row.line);
  if (!inserts.has(key)) updates.set(key, row);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Keeps a session's list in position order (a request ending late may precede newer ones). */
function insertInOrder(map: Map<string, TimelineRequestRow[]>, key: string, row: TimelineRequestRow): void {
  const list = map.get(key) ?? [];
  map.set(key, list);
  let i = list.length;
  while (i > 0 && (list[i - 1]!.file_index > row.file_index || (list[i - 1]!.file_index === row.file_index && list[i - 1]!.line > row.line))) i -= 1;
  list.splice(i, 0, row);
}

/**
 * The row tables are keyed by their primary key alone: with a rowid, the table and the key's
 * index would each hold every row's session id and position, and a rebuild inserts a row
 * into both (over a hundred thousand requests and as many tool calls on a large root).
 */
const withoutRowid = sql`without rowid`;

export const timelineProjection: Projection<TimelineTables> = {
  name: "timeline",
  // 2: the time-travel snapshots and the viewer's statistics. 3: snapshot chunks refer to
  // trace lines instead of copying them (SNAPSHOT_FORMAT 2); the events in blocks of lines;
  // the row tables without rowid.
  // Bump it whenever evolve's rules, the snapshot format or the statistics' rules change.
  version: 3,
  handles: [],
  // A parallel rebuild imports it from here in its worker threads.
  source: { module: import.meta.url, exportName: "timelineProjection" },
  async migrate(db) {
    const positioned = (name: keyof TimelineTables) =>
      db.schema
        .createTable(name)
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("file_index", "integer", (c) => c.notNull())
        .addColumn("line", "integer", (c) => c.notNull());
    await migrateEventBlocks(db);
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
      .modifyEnd(withoutRowid)
      .execute();
    await positioned("timeline_tool_calls")
      .addColumn("tool_call_id", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("begin_ts", "integer", (c) => c.notNull())
      .addColumn("end_ts", "integer")
      .addColumn("duration_ms", "integer")
      .addColumn("status", "text")
      .addPrimaryKeyConstraint("timeline_tool_calls_pk", ["session_id", "tool_call_id"])
      .modifyEnd(withoutRowid)
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
      .modifyEnd(withoutRowid)
      .execute();
    await positioned("timeline_subagents")
      .addColumn("ts", "integer", (c) => c.notNull())
      .addColumn("child_session_id", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("timeline_subagents_pk", ["session_id", "file_index", "line"])
      .modifyEnd(withoutRowid)
      .execute();
    await migrateSnapshotTables(db);
    await migrateAnalysisTable(db);
  },
  async apply(batch, db, rows) {
    await applyEventBlocks(batch, db, rows);
    const folded = await TimelineBatch.load(db, batch);
    for (const e of batch) folded.apply(e);
    await folded.write(db, rows);
    await applySnapshots(batch, db, rows);
    await applyAnalysis(batch, db, rows);
  },
};
