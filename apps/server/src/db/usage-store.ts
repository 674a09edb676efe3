/**
 * Usage and error records: one usage row per model request (tokens, or zero tokens and the
 * failure status), one error row per failed request. Cost is never stored: it is computed at
 * query time from the prices configured then (services/usage-query.ts).
 *
 * Aggregation groups in SQL by (time bucket, group key, provider, model), so the caller can
 * price each model separately even when a group spans several. Time buckets are the server's
 * local calendar (`localtime`), like the `date` column; weeks start on Monday.
 */
import type { Database, Statement } from "better-sqlite3";

export type Granularity = "minute" | "hour" | "day" | "week" | "month";
export type UsageGroupBy = "date" | "agent" | "model" | "session";

export interface UsageRecord {
  ts: number;
  date: string;
  projectId: string;
  agentId: string;
  sessionId: string;
  originSessionId: string | null;
  provider: string;
  modelId: string;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
  status: string;
}

export interface ErrorRecord {
  ts: number;
  date: string;
  projectId: string;
  agentId: string;
  sessionId: string;
  source: string;
  kind: "expected" | "unexpected";
  code: string | null;
  status: string;
  message: string;
}

export interface UsageFilter {
  projectId: string;
  fromTs?: number | undefined;
  toTs?: number | undefined;
  fromDate?: string | undefined;
  toDate?: string | undefined;
  agentId?: string | undefined;
  provider?: string | undefined;
  modelId?: string | undefined;
}

export interface UsageAggregateRow {
  bucket: string;
  groupKey: string;
  provider: string;
  modelId: string;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
  requests: number;
  failures: number;
}

interface RawAggregate {
  bucket: string;
  group_key: string;
  provider: string;
  model_id: string;
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
  requests: number;
  failures: number;
}

interface RawError {
  id: number;
  ts: number;
  date: string;
  project_id: string;
  agent_id: string;
  session_id: string;
  source: string;
  kind: string;
  code: string | null;
  status: string;
  message: string;
}

export interface ErrorItem extends ErrorRecord {
  id: number;
}

const LOCAL = "ts / 1000, 'unixepoch', 'localtime'";

const BUCKET_SQL: Record<Granularity, string> = {
  minute: `strftime('%Y-%m-%dT%H:%M', ${LOCAL})`,
  hour: `strftime('%Y-%m-%dT%H:00', ${LOCAL})`,
  day: `date(${LOCAL})`,
  week: `date(${LOCAL}, 'weekday 0', '-6 days')`,
  month: `strftime('%Y-%m', ${LOCAL})`,
};

const GROUP_SQL: Record<UsageGroupBy, string> = {
  date: "''",
  agent: "agent_id",
  model: "provider || '/' || model_id",
  session: "session_id",
};

/** Error messages are capped (SPEC §9: message ≤ 500). */
export const ERROR_MESSAGE_MAX = 500;

export class UsageStore {
  readonly #db: Database;
  readonly #insertUsage;
  readonly #insertError;
  readonly #cache = new Map<string, Statement<unknown[], unknown>>();

  constructor(db: Database) {
    this.#db = db;
    this.#insertUsage = db.prepare<[number, string, string, string, string, string | null, string, string, number, number, number, number, string]>(
      `INSERT INTO usage_records (ts, date, project_id, agent_id, session_id, origin_session_id, provider, model_id, cache_read, cache_write, output, total, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertError = db.prepare<[number, string, string, string, string, string, string, string | null, string, string]>(
      `INSERT INTO error_records (ts, date, project_id, agent_id, session_id, source, kind, code, status, message)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  insertUsage(r: UsageRecord): void {
    this.#insertUsage.run(r.ts, r.date, r.projectId, r.agentId, r.sessionId, r.originSessionId, r.provider, r.modelId, r.cacheRead, r.cacheWrite, r.output, r.total, r.status);
  }

  insertError(r: ErrorRecord): void {
    this.#insertError.run(r.ts, r.date, r.projectId, r.agentId, r.sessionId, r.source, r.kind, r.code, r.status, r.message.slice(0, ERROR_MESSAGE_MAX));
  }

  aggregate(filter: UsageFilter, groupBy: UsageGroupBy, granularity: Granularity): UsageAggregateRow[] {
    const { where, args } = whereOf(filter);
    const bucket = groupBy === "date" ? BUCKET_SQL[granularity] : "''";
    const sql = `SELECT ${bucket} AS bucket, ${GROUP_SQL[groupBy]} AS group_key, provider, model_id,
        SUM(cache_read) AS cache_read, SUM(cache_write) AS cache_write, SUM(output) AS output, SUM(total) AS total,
        COUNT(*) AS requests, SUM(CASE WHEN status = 'completed' THEN 0 ELSE 1 END) AS failures
      FROM usage_records WHERE ${where}
      GROUP BY bucket, group_key, provider, model_id ORDER BY bucket, group_key, provider, model_id`;
    return this.#statement(sql).all(...args).filter(isRawAggregate).map((r) => ({
      bucket: r.bucket,
      groupKey: r.group_key,
      provider: r.provider,
      modelId: r.model_id,
      cacheRead: r.cache_read,
      cacheWrite: r.cache_write,
      output: r.output,
      total: r.total,
      requests: r.requests,
      failures: r.failures,
    }));
  }

  errors(filter: UsageFilter, limit: number, offset: number): { items: ErrorItem[]; total: number } {
    const { where, args } = whereOf(filter);
    const countRow = this.#statement(`SELECT COUNT(*) AS n FROM error_records WHERE ${where}`).get(...args);
    const total = typeof countRow === "object" && countRow !== null && "n" in countRow && typeof countRow.n === "number" ? countRow.n : 0;
    const rows = this.#statement(`SELECT * FROM error_records WHERE ${where} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`).all(...args, limit, offset);
    const items = rows.filter(isRawError).map((r) => ({
      id: r.id,
      ts: r.ts,
      date: r.date,
      projectId: r.project_id,
      agentId: r.agent_id,
      sessionId: r.session_id,
      source: r.source,
      kind: r.kind === "expected" ? ("expected" as const) : ("unexpected" as const),
      code: r.code,
      status: r.status,
      message: r.message,
    }));
    return { items, total };
  }

  /** Usage rows of one session (tests and session info). */
  sessionTotals(sessionId: string): { requests: number; total: number } {
    const row = this.#statement("SELECT COUNT(*) AS requests, COALESCE(SUM(total), 0) AS total FROM usage_records WHERE session_id = ?").get(sessionId);
    if (typeof row === "object" && row !== null && "requests" in row && "total" in row && typeof row.requests === "number" && typeof row.total === "number") {
      return { requests: row.requests, total: row.total };
    }
    return { requests: 0, total: 0 };
  }

  #statement(sql: string): Statement<unknown[], unknown> {
    let s = this.#cache.get(sql);
    if (s === undefined) {
      s = this.#db.prepare<unknown[], unknown>(sql);
      this.#cache.set(sql, s);
    }
    return s;
  }
}

function whereOf(f: UsageFilter): { where: string; args: (string | number)[] } {
  const parts = ["project_id = ?"];
  const args: (string | number)[] = [f.projectId];
  const add = (sql: string, v: string | number | undefined) => {
    if (v === undefined) return;
    parts.push(sql);
    args.push(v);
  };
  add("ts >= ?", f.fromTs);
  add("ts < ?", f.toTs);
  add("date >= ?", f.fromDate);
  add("date <= ?", f.toDate);
  add("agent_id = ?", f.agentId);
  add("provider = ?", f.provider);
  add("model_id = ?", f.modelId);
  return { where: parts.join(" AND "), args };
}

function isRawAggregate(v: unknown): v is RawAggregate {
  return typeof v === "object" && v !== null && "group_key" in v && "cache_read" in v;
}

function isRawError(v: unknown): v is RawError {
  return typeof v === "object" && v !== null && "kind" in v && "message" in v;
}
