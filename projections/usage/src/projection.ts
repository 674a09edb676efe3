/**
 * The `usage` projection: one row per model request, at the position of the event that
 * closed it. A `token_usage` (written right after a completed request) gives a `completed`
 * row with its tokens; a `request_end` that failed (`failed`, `timeout`, `malformed`, `auth`,
 * retried or not) gives a row with zero tokens, its status and error message. An `aborted`
 * request is the user stopping the task: no row. Cost is never stored (queries.ts prices
 * rows at query time).
 *
 * The model of a row is the `session_meta` of its own trace file (`usage_models`), so a
 * subagent's requests are priced by the subagent's model. Which session a subagent belongs
 * to comes from the parent's `subagent` event (`usage_links`); queries attribute the child's
 * rows to the parent through it, so the order the two traces are read in does not matter.
 */
import { sql, type Kysely } from "kysely";
import type { Projection, TraceEvent } from "@penguin/projections-runner";

export interface UsageRequestRow {
  session_id: string;
  file_index: number;
  line: number;
  ts: number;
  project_id: string;
  agent_id: string;
  provider: string;
  model_id: string;
  status: string;
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
  error_message: string | null;
}

export interface UsageModelRow {
  session_id: string;
  file_index: number;
  provider: string;
  model_id: string;
}

export interface UsageLinkRow {
  child_session_id: string;
  parent_session_id: string;
}

export interface UsageTables {
  usage_requests: UsageRequestRow;
  usage_models: UsageModelRow;
  usage_links: UsageLinkRow;
}

/** Failure messages are capped: they are shown in lists, and the trace keeps the full text. */
export const ERROR_MESSAGE_MAX = 500;
const UNKNOWN = "unknown";

export const usageProjection: Projection<UsageTables> = {
  name: "usage",
  // 2: the request rows are kept by their primary key alone (without rowid).
  version: 2,
  handles: ["session_meta", "token_usage", "request_end", "subagent"],
  // A parallel rebuild imports it from here in its worker threads.
  source: { module: import.meta.url, exportName: "usageProjection" },
  async migrate(db) {
    await db.schema
      .createTable("usage_requests")
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("file_index", "integer", (c) => c.notNull())
      .addColumn("line", "integer", (c) => c.notNull())
      .addColumn("ts", "integer", (c) => c.notNull())
      .addColumn("project_id", "text", (c) => c.notNull())
      .addColumn("agent_id", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("model_id", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("cache_read", "integer", (c) => c.notNull())
      .addColumn("cache_write", "integer", (c) => c.notNull())
      .addColumn("output", "integer", (c) => c.notNull())
      .addColumn("total", "integer", (c) => c.notNull())
      .addColumn("error_message", "text")
      .addPrimaryKeyConstraint("usage_requests_pk", ["session_id", "file_index", "line"])
      // Keyed by the primary key alone: with a rowid, the table and the key's index would each
      // hold every row's session id and position, and a rebuild writes one row per request
      // (over a hundred thousand on a large root) into both, and again when a parallel
      // rebuild joins its worker's file.
      .modifyEnd(sql`without rowid`)
      .execute();
    await db.schema.createIndex("usage_requests_by_project_ts").on("usage_requests").columns(["project_id", "ts"]).execute();
    await db.schema
      .createTable("usage_models")
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("file_index", "integer", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("model_id", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("usage_models_pk", ["session_id", "file_index"])
      .execute();
    await db.schema
      .createTable("usage_links")
      .addColumn("child_session_id", "text", (c) => c.primaryKey())
      .addColumn("parent_session_id", "text", (c) => c.notNull())
      .execute();
  },
  async apply(batch, db, writer) {
    // The model of every (session, file) in the batch, read once up front: the loop below stays synchronous.
    const models = new Map<string, { provider: string; model_id: string }>();
    const wanted = new Map<string, { sessionId: string; fileIndex: number }>();
    for (const e of batch) wanted.set(`${e.sessionId}\u0000${e.fileIndex}`, { sessionId: e.sessionId, fileIndex: e.fileIndex });
    for (const { sessionId, fileIndex } of wanted.values()) {
      const found = await db.selectFrom("usage_models").select(["provider", "model_id"]).where("session_id", "=", sessionId).where("file_index", "=", fileIndex).executeTakeFirst();
      if (found !== undefined) models.set(`${sessionId}\u0000${fileIndex}`, found);
    }
    const modelOf = (e: TraceEvent) => models.get(`${e.sessionId}\u0000${e.fileIndex}`) ?? { provider: UNKNOWN, model_id: UNKNOWN };
    const rows: UsageRequestRow[] = [];
    for (const e of batch) {
      const m = e.message;
      if (m.type === "session_meta") {
        const model = { provider: m.payload.provider, model_id: m.payload.model_id };
        models.set(`${e.sessionId}\u0000${e.fileIndex}`, model);
        await db
          .insertInto("usage_models")
          .values({ session_id: e.sessionId, file_index: e.fileIndex, ...model })
          .onConflict((oc) => oc.columns(["session_id", "file_index"]).doUpdateSet(model))
          .execute();
        continue;
      }
      if (m.type !== "event_msg") continue;
      const p = m.payload;
      if (p.type === "subagent") {
        await db.insertInto("usage_links").values({ child_session_id: p.session_id, parent_session_id: e.sessionId }).onConflict((oc) => oc.column("child_session_id").doUpdateSet({ parent_session_id: e.sessionId })).execute();
      } else if (p.type === "token_usage") {
        rows.push(requestRow(e, modelOf(e), "completed", p.request, null));
      } else if (p.type === "request_end" && p.status !== "completed" && p.status !== "aborted") {
        rows.push(requestRow(e, modelOf(e), p.status, ZERO_USAGE, (p.error_message ?? p.status).slice(0, ERROR_MESSAGE_MAX)));
      }
    }
    await writer.insert("usage_requests", rows);
  },
};

const ZERO_USAGE = { cache_read: 0, cache_write: 0, output: 0, total: 0 } as const;

/**
 * One request row, as a single object literal: a `{ ...base, more }` spread makes V8 define
 * the later properties one by one on a slow path, for every one of a rebuild's rows.
 */
function requestRow(e: TraceEvent, model: { provider: string; model_id: string }, status: string, tokens: { cache_read: number; cache_write: number; output: number; total: number }, error: string | null): UsageRequestRow {
  return {
    session_id: e.sessionId,
    file_index: e.fileIndex,
    line: e.line,
    ts: e.ts,
    project_id: e.projectId,
    agent_id: e.agentId,
    provider: model.provider,
    model_id: model.model_id,
    status,
    cache_read: tokens.cache_read,
    cache_write: tokens.cache_write,
    output: tokens.output,
    total: tokens.total,
    error_message: error,
  };
}

export type UsageDb = Kysely<UsageTables>;
