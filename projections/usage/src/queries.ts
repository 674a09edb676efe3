/**
 * Usage figures from the `usage` projection: token sums grouped by time bucket, model, agent
 * or session, and the failed requests. Cost is computed here, at query time, from the prices
 * the caller resolves now (`priceOf`: the project's model entry, else the preset catalog), with
 * `costUsd` of @penguin/models, per model inside each group, so a group spanning models is
 * priced right. A request with tokens but no price makes its group `hasUncosted`.
 *
 * A subagent's requests count for the session that spawned it (`usage_links`). Time buckets
 * are the local calendar of the process asking, like `--since 7d`.
 */
import { sql, type Kysely } from "kysely";
import { costUsd, type Pricing } from "@penguin/models";
import { localTimeBucket, positionText } from "@penguin/projections-runner";
import { costText } from "./cost-text.js";
import type { UsageTables } from "./projection.js";

export type UsageGroupBy = "day" | "model" | "agent" | "session";
export type Granularity = "minute" | "hour" | "day" | "week" | "month";

export interface UsageFilter {
  projectId?: string | undefined;
  agentId?: string | undefined;
  /** Half-open event-time range, ms. */
  fromTs?: number | undefined;
  toTs?: number | undefined;
  /** Inclusive local dates, YYYY-MM-DD. */
  fromDate?: string | undefined;
  toDate?: string | undefined;
  provider?: string | undefined;
  modelId?: string | undefined;
  /** Only the requests of this session (its subagents' included). */
  sessionId?: string | undefined;
}

export type PriceOf = (projectId: string, provider: string, modelId: string) => Pricing | undefined;

export interface UsageRow {
  /** The time bucket (day), `provider/model`, the agent id or the session id. */
  key: string;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
  requests: number;
  failures: number;
  cost: number;
  hasUncosted: boolean;
  costText: string;
}

export interface UsageReport {
  groupBy: UsageGroupBy;
  granularity: Granularity;
  rows: UsageRow[];
  totals: Omit<UsageRow, "key">;
}

/** A row's local calendar bucket; the engines spell it differently (runner's dialect.ts). */
const bucket = (db: Kysely<any>, granularity: Granularity) => localTimeBucket(db, sql`r.ts`, granularity);

const SESSION = sql<string>`coalesce(l.parent_session_id, r.session_id)`;

function filtered(db: Kysely<any>, f: UsageFilter) {
  let q = (db as Kysely<UsageTables>).selectFrom("usage_requests as r").leftJoin("usage_links as l", "l.child_session_id", "r.session_id");
  if (f.projectId !== undefined) q = q.where("r.project_id", "=", f.projectId);
  if (f.agentId !== undefined) q = q.where("r.agent_id", "=", f.agentId);
  if (f.fromTs !== undefined) q = q.where("r.ts", ">=", f.fromTs);
  if (f.toTs !== undefined) q = q.where("r.ts", "<", f.toTs);
  if (f.fromDate !== undefined) q = q.where(bucket(db, "day"), ">=", f.fromDate);
  if (f.toDate !== undefined) q = q.where(bucket(db, "day"), "<=", f.toDate);
  if (f.provider !== undefined) q = q.where("r.provider", "=", f.provider);
  if (f.modelId !== undefined) q = q.where("r.model_id", "=", f.modelId);
  if (f.sessionId !== undefined) q = q.where(SESSION, "=", f.sessionId);
  return q;
}

const emptyRow = (key: string): UsageRow => ({ key, cacheRead: 0, cacheWrite: 0, output: 0, total: 0, requests: 0, failures: 0, cost: 0, hasUncosted: false, costText: "" });

export async function queryUsage(db: Kysely<any>, filter: UsageFilter, groupBy: UsageGroupBy, priceOf: PriceOf, granularity: Granularity = "day"): Promise<UsageReport> {
  const key =
    groupBy === "day" ? bucket(db, granularity) : groupBy === "model" ? sql<string>`r.provider || '/' || r.model_id` : groupBy === "agent" ? sql<string>`r.agent_id` : SESSION;
  const groups = await filtered(db, filter)
    .select([
      key.as("group_key"),
      "r.project_id",
      "r.provider",
      "r.model_id",
      sql<number>`sum(r.cache_read)`.as("cache_read"),
      sql<number>`sum(r.cache_write)`.as("cache_write"),
      sql<number>`sum(r.output)`.as("output"),
      sql<number>`sum(r.total)`.as("total"),
      sql<number>`count(*)`.as("requests"),
      sql<number>`sum(case when r.status = 'completed' then 0 else 1 end)`.as("failures"),
    ])
    .groupBy([sql`group_key`, "r.project_id", "r.provider", "r.model_id"])
    .orderBy(sql`group_key`)
    .orderBy("r.provider")
    .orderBy("r.model_id")
    .execute();
  const rows = new Map<string, UsageRow>();
  const totals = emptyRow("");
  for (const g of groups) {
    const row = rows.get(g.group_key) ?? emptyRow(g.group_key);
    rows.set(g.group_key, row);
    const tokens = { cache_read: Number(g.cache_read), cache_write: Number(g.cache_write), output: Number(g.output), total: Number(g.total) };
    const cost = tokens.total === 0 ? 0 : costUsd(tokens, priceOf(g.project_id, g.provider, g.model_id));
    for (const target of [row, totals]) {
      target.cacheRead += tokens.cache_read;
      target.cacheWrite += tokens.cache_write;
      target.output += tokens.output;
      target.total += tokens.total;
      target.requests += Number(g.requests);
      target.failures += Number(g.failures);
      if (cost === undefined) target.hasUncosted = true;
      else target.cost += cost;
    }
  }
  for (const target of [...rows.values(), totals]) target.costText = costText(target.cost, target.hasUncosted);
  const { key: _key, ...total } = totals;
  return { groupBy, granularity, rows: [...rows.values()], totals: total };
}

export interface UsageErrorItem {
  ts: number;
  projectId: string;
  agentId: string;
  sessionId: string;
  /** `model` for the session's own requests, `subagent:<id>` for a child's. */
  source: string;
  kind: "expected" | "unexpected";
  status: string;
  message: string;
  provider: string;
  modelId: string;
  /** `NNN:LLLLLL` in the trace of the session that made the request. */
  position: string;
}

/** Failures the user can act on (credentials, network) versus ones that look like bugs. */
export function failureKind(status: string): "expected" | "unexpected" {
  return status === "auth" || status === "timeout" ? "expected" : "unexpected";
}

export async function usageErrors(db: Kysely<any>, filter: UsageFilter, limit: number, offset: number): Promise<{ items: UsageErrorItem[]; total: number }> {
  const base = filtered(db, filter).where("r.status", "!=", "completed");
  const count = await base.select(sql<number>`count(*)`.as("n")).executeTakeFirst();
  const rows = await base
    .select(["r.ts", "r.project_id", "r.agent_id", "r.session_id", "l.parent_session_id", "r.status", "r.error_message", "r.provider", "r.model_id", "r.file_index", "r.line"])
    .orderBy("r.ts", "desc")
    .orderBy("r.session_id", "desc")
    .orderBy("r.file_index", "desc")
    .orderBy("r.line", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  const items = rows.map((r) => ({
    ts: Number(r.ts),
    projectId: r.project_id,
    agentId: r.agent_id,
    sessionId: r.parent_session_id ?? r.session_id,
    source: r.parent_session_id === null ? "model" : `subagent:${r.session_id}`,
    kind: failureKind(r.status),
    status: r.status,
    message: r.error_message ?? r.status,
    provider: r.provider,
    modelId: r.model_id,
    position: positionText(Number(r.file_index), Number(r.line)),
  }));
  return { items, total: Number(count?.n ?? 0) };
}
