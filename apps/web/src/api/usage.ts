/**
 * Usage figures (SPEC §9 `P/usage`, `P/usage/errors`): token sums, requests, failures and
 * cost (computed by the server at query time; `hasUncosted` when a model has no price), by
 * time bucket or group, and the paged list of failed requests.
 */
import { decodeAnswer, reportUndecoded } from "./contract-decode";
import { UsageReportShape } from "@penguin/server/contract-shapes";
import { get, withQuery } from "./http";
import { projectPath } from "./projects";
import { arr, asRecord, bool, num, str, type Json } from "./read";
import type { Granularity, UsageErrorItem, UsageGroupBy, UsageReport, UsageRow } from "./types";

export interface UsageFilter {
  fromTs?: number;
  toTs?: number;
  agentId?: string;
  provider?: string;
  modelId?: string;
}

function rowOf(o: Json): UsageRow {
  return {
    key: str(o, "key") ?? "",
    cacheRead: num(o, "cacheRead") ?? 0,
    cacheWrite: num(o, "cacheWrite") ?? 0,
    output: num(o, "output") ?? 0,
    total: num(o, "total") ?? 0,
    requests: num(o, "requests") ?? 0,
    failures: num(o, "failures") ?? 0,
    cost: num(o, "cost") ?? 0,
    hasUncosted: bool(o, "hasUncosted") ?? false,
  };
}

function query(filter: UsageFilter): Record<string, string | number | undefined> {
  return { fromTs: filter.fromTs, toTs: filter.toTs, agentId: filter.agentId, provider: filter.provider, modelId: filter.modelId };
}

export async function getUsage(projectId: string, filter: UsageFilter, groupBy: UsageGroupBy, granularity: Granularity): Promise<UsageReport> {
  const raw = await get(withQuery(`${projectPath(projectId)}/usage`, { ...query(filter), groupBy, granularity }));
  const report = decodeAnswer("UsageReport", UsageReportShape, raw);
  if (report.ok) return { rows: report.value.rows.map((r) => ({ ...r })), totals: { ...report.value.totals } };
  reportUndecoded("UsageReport", report.error);
  const o = asRecord(raw);
  const { key: _key, ...totals } = rowOf(asRecord(o.totals));
  return { rows: arr(o, "rows").map((r) => rowOf(asRecord(r))), totals };
}

export async function getUsageErrors(projectId: string, filter: UsageFilter, limit: number, offset: number): Promise<{ items: UsageErrorItem[]; total: number }> {
  const o = asRecord(await get(withQuery(`${projectPath(projectId)}/usage/errors`, { ...query(filter), limit, offset })));
  const items = arr(o, "items").map((raw) => {
    const r = asRecord(raw);
    return {
      id: num(r, "id") ?? 0,
      ts: num(r, "ts") ?? 0,
      agentId: str(r, "agentId") ?? "",
      sessionId: str(r, "sessionId") ?? "",
      source: str(r, "source") ?? "",
      kind: str(r, "kind") ?? "",
      code: str(r, "code") ?? null,
      status: str(r, "status") ?? "",
      message: str(r, "message") ?? "",
    };
  });
  return { items, total: num(o, "total") ?? items.length };
}
