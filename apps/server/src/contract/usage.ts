/** Token usage and failed requests as the usage routes answer them (SPEC §5 costs). */
import { Schema } from "effect";

const UsageTotals = {
  cacheRead: Schema.Number,
  cacheWrite: Schema.Number,
  output: Schema.Number,
  total: Schema.Number,
  requests: Schema.Number,
  failures: Schema.Number,
  cost: Schema.Number,
  /** Some tokens had no price: `cost` leaves them out. */
  hasUncosted: Schema.Boolean,
  /** `cost` as the pages print it. */
  costText: Schema.String,
};
export const USAGE_GROUP_BY_VALUES = ["date", "agent", "model", "session"] as const;
export const GRANULARITY_VALUES = ["minute", "hour", "day", "week", "month"] as const;
/** One bucket: the time (local `YYYY-MM-DD[THH:MM]` or `YYYY-MM`) or the group key. */
export const UsageRow = Schema.Struct({ key: Schema.String, ...UsageTotals });
export const UsageReport = Schema.Struct({
  groupBy: Schema.Literal(...USAGE_GROUP_BY_VALUES),
  granularity: Schema.Literal(...GRANULARITY_VALUES),
  rows: Schema.Array(UsageRow),
  totals: Schema.Struct(UsageTotals),
});
export const UsageErrorItem = Schema.Struct({
  id: Schema.Number,
  ts: Schema.Number,
  date: Schema.String,
  projectId: Schema.String,
  agentId: Schema.String,
  sessionId: Schema.String,
  source: Schema.String,
  kind: Schema.Literal("expected", "unexpected"),
  code: Schema.NullOr(Schema.String),
  status: Schema.String,
  message: Schema.String,
});
export const UsageErrors = Schema.Struct({ items: Schema.Array(UsageErrorItem), total: Schema.Number });

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type UsageRow = typeof UsageRow.Type;
export type UsageReport = typeof UsageReport.Type;
export type UsageErrorItem = typeof UsageErrorItem.Type;
export type UsageErrors = typeof UsageErrors.Type;
