/**
 * The usage API's figures: token sums grouped by date (in `minute`…`month` buckets), agent,
 * model or session, with cost computed now from the prices configured now.
 *
 * Cost rule (SPEC §5): `costUsd` of @penguin/models (the one function every surface prices
 * with), with prices in USD per million tokens from the project's `[[models]]` entry, else
 * the preset catalog. A model with tokens in a bucket it has no price for is "uncosted": its
 * share is left out of `cost` and the row says `hasUncosted`, so an unpriced model never
 * looks free.
 * Aggregation runs per model inside each row so mixed-model rows are priced correctly.
 */
import { findModel, type ProjectConfig } from "@penguin/core";
import { costUsd, findModelPreset, type Pricing } from "@penguin/models";
import type { Granularity, UsageFilter, UsageGroupBy, UsageStore } from "../db/usage-store.js";

export interface UsageRow {
  /** The time bucket (groupBy=date) or the group key: agent id, `provider/model`, session id. */
  key: string;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
  requests: number;
  failures: number;
  cost: number;
  hasUncosted: boolean;
}

export interface UsageReport {
  groupBy: UsageGroupBy;
  granularity: Granularity;
  rows: UsageRow[];
  totals: Omit<UsageRow, "key">;
}

export function pricingFor(config: ProjectConfig, provider: string, modelId: string): Pricing | undefined {
  return findModel(config, { provider, model_id: modelId })?.pricing ?? findModelPreset(provider, modelId)?.pricing;
}

const emptyRow = (key: string): UsageRow => ({ key, cacheRead: 0, cacheWrite: 0, output: 0, total: 0, requests: 0, failures: 0, cost: 0, hasUncosted: false });

export function queryUsage(usage: UsageStore, config: ProjectConfig, filter: UsageFilter, groupBy: UsageGroupBy, granularity: Granularity): UsageReport {
  const rows = new Map<string, UsageRow>();
  const totals = emptyRow("");
  for (const r of usage.aggregate(filter, groupBy, granularity)) {
    const key = groupBy === "date" ? r.bucket : r.groupKey;
    const row = rows.get(key) ?? emptyRow(key);
    rows.set(key, row);
    const cost = costUsd({ cache_read: r.cacheRead, cache_write: r.cacheWrite, output: r.output, total: r.total }, pricingFor(config, r.provider, r.modelId));
    for (const target of [row, totals]) {
      target.cacheRead += r.cacheRead;
      target.cacheWrite += r.cacheWrite;
      target.output += r.output;
      target.total += r.total;
      target.requests += r.requests;
      target.failures += r.failures;
      if (cost === undefined) target.hasUncosted = true;
      else target.cost += cost;
    }
  }
  const { key: _key, ...total } = totals;
  return { groupBy, granularity, rows: [...rows.values()], totals: total };
}
