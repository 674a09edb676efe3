/**
 * The usage API's figures: token sums grouped by date (in `minute`…`month` buckets), agent,
 * model or session, with cost computed now from the prices configured now.
 *
 * Cost rule (SPEC §5): `costUsd` of @penguin/models (the one function every surface prices
 * with, applied in projections/usage), with prices in USD per million tokens from the
 * project's `[[models]]` entry, else the preset catalog. A model with tokens in a group it
 * has no price for is "uncosted": its share is left out of `cost` and the row says
 * `hasUncosted`, so an unpriced model never looks free; `costText` writes the figure the way
 * the CLI does.
 */
import { findModel, type ProjectConfig } from "@penguin/core";
import { findModelPreset, type Pricing } from "@penguin/models";
import type { UsageReport as ProjectionReport } from "@penguin/projections-usage";
import type { Granularity, UsageFilter, UsageGroupBy, UsageStore } from "../db/usage-store.js";

export type UsageRow = ProjectionReport["rows"][number];

export interface UsageReport {
  groupBy: UsageGroupBy;
  granularity: Granularity;
  rows: UsageRow[];
  totals: Omit<UsageRow, "key">;
}

export function pricingFor(config: ProjectConfig, provider: string, modelId: string): Pricing | undefined {
  return findModel(config, { provider, model_id: modelId })?.pricing ?? findModelPreset(provider, modelId)?.pricing;
}

export async function queryUsage(usage: UsageStore, config: ProjectConfig, filter: UsageFilter, groupBy: UsageGroupBy, granularity: Granularity): Promise<UsageReport> {
  const report = await usage.report(filter, groupBy, granularity, (_project, provider, modelId) => pricingFor(config, provider, modelId));
  return { groupBy, granularity, rows: report.rows, totals: report.totals };
}
