/**
 * Usage reads for the routes, over the usage projection (`projections.db`, kept current by
 * the server's live runner). Nothing here writes: a request's row exists because its
 * `token_usage` or failed `request_end` is in a trace, whoever ran the session.
 *
 * Every read first lets the runner apply what the traces gained (a pass over file sizes when
 * nothing changed), so an answer includes every request that is durable in a trace. Cost is
 * computed at query time (services/usage-query.ts). Time buckets are the server's local
 * calendar; weeks start on Monday.
 */
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { queryUsage, usageErrors, type Granularity, type PriceOf, type UsageGroupBy as ProjectionGroupBy, type UsageReport } from "@penguin/projections-usage";

export type { Granularity } from "@penguin/projections-usage";
export type UsageGroupBy = "date" | "agent" | "model" | "session";

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

export interface ErrorItem {
  /** Rank in this listing (1-based, after `offset`): a key for lists, not a stored id. */
  id: number;
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
  /** `NNN:LLLLLL` in the trace of the session (or subagent) that made the request. */
  position: string;
}

const pad = (n: number) => String(n).padStart(2, "0");
const localDate = (ts: number) => {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
};

export class UsageStore {
  readonly #projections: LiveProjectionRunner;

  constructor(projections: LiveProjectionRunner) {
    this.#projections = projections;
  }

  async report(filter: UsageFilter, groupBy: UsageGroupBy, granularity: Granularity, priceOf: PriceOf): Promise<UsageReport> {
    await this.#projections.refresh();
    const by: ProjectionGroupBy = groupBy === "date" ? "day" : groupBy;
    const report = await this.#projections.read((db) => queryUsage(db, filter, by, priceOf, granularity));
    return { ...report, groupBy: groupBy === "date" ? "day" : report.groupBy };
  }

  async errors(filter: UsageFilter, limit: number, offset: number): Promise<{ items: ErrorItem[]; total: number }> {
    await this.#projections.refresh();
    const page = await this.#projections.read((db) => usageErrors(db, filter, limit, offset));
    return {
      total: page.total,
      items: page.items.map((e, i) => ({ id: offset + i + 1, ts: e.ts, date: localDate(e.ts), projectId: e.projectId, agentId: e.agentId, sessionId: e.sessionId, source: e.source, kind: e.kind, code: e.status, status: e.status, message: e.message, position: e.position })),
    };
  }

  /** Requests and tokens of one session, its subagents' included. */
  async sessionTotals(sessionId: string): Promise<{ requests: number; total: number }> {
    await this.#projections.refresh();
    const report = await this.#projections.read((db) => queryUsage(db, { sessionId }, "session", () => undefined));
    return { requests: report.totals.requests, total: report.totals.total };
  }
}
