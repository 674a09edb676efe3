// @penguin/projections-usage: one row per model request; cost priced at query time.
export { usageProjection, ERROR_MESSAGE_MAX } from "./projection.js";
export type { UsageTables, UsageRequestRow, UsageModelRow, UsageLinkRow } from "./projection.js";
export { queryUsage, usageErrors, failureKind } from "./queries.js";
export type { UsageFilter, UsageGroupBy, Granularity, PriceOf, UsageRow, UsageReport, UsageErrorItem } from "./queries.js";
export { costText } from "./cost-text.js";
