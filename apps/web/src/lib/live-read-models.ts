/**
 * The read-model rows `/api/events` carries, applied to what the pages show, as pure
 * functions (the stores and pages call them; unit tests check them without a browser):
 * - a `session_row` becomes the session list's row (a session the list already has keeps what
 *   the row does not carry: approval mode, thinking level, live task state);
 * - a `usage_totals` event's `added` (what the project's totals grew by) is added to the Usage
 *   page's totals, when the page shows a range that ends now and no agent or model filter
 *   (the usage just recorded lies at "now"; which agent or model spent it the event does not say).
 */
import type { SessionRow, UsageAdded } from "../api/stream-events";
import type { SessionSummary, UsageReport } from "../api/types";

/**
 * The list's row for a projection row; `existing` is the list's current row for it, if any.
 * `serverTask`: the server runs its tasks and says so with `session_state`, which then owns the
 * task state; otherwise (a session run by the CLI) the row's status is all there is.
 */
export function summaryFromRow(row: SessionRow, existing: SessionSummary | undefined, serverTask = false): SessionSummary {
  const source = row.source === "subagent" || row.source === "schedule" ? row.source : null;
  const running = row.status === "running";
  return {
    id: row.sessionId,
    projectId: row.projectId,
    agentId: row.agentId,
    title: row.title ?? existing?.title ?? null,
    provider: row.provider,
    modelId: row.modelId,
    workspace: row.workspace,
    // Not in the row: kept from the list, or (a session new to the list) the strictest mode until its page loads it.
    approvalMode: existing?.approvalMode ?? "always-ask",
    thinkingLevel: existing?.thinkingLevel ?? null,
    archived: row.archived,
    source: existing?.source ?? source,
    forkedFrom: existing?.forkedFrom ?? (row.forkedFrom === null ? null : { sessionId: row.forkedFrom, at: "" }),
    replayOf: existing?.replayOf ?? null,
    state: serverTask && existing !== undefined ? existing.state : running ? "running" : "idle",
    lastActiveAt: Math.max(existing?.lastActiveAt ?? 0, row.lastEventAt),
    createdAt: existing?.createdAt ?? row.createdAt,
    ...(existing?.sandboxNetwork === undefined ? {} : { sandboxNetwork: existing.sandboxNetwork }),
  };
}

type Totals = UsageReport["totals"];

/** `totals` with `added` added to each number it names. */
export function addUsage(totals: Totals, added: UsageAdded): Totals {
  const out = { ...totals };
  for (const [key, value] of Object.entries(added) as [keyof UsageAdded, number][]) out[key] = out[key] + value;
  return out;
}

/** Sums of several `added`. */
export function sumAdded(a: UsageAdded, b: UsageAdded): UsageAdded {
  const out: UsageAdded = { ...a };
  for (const [key, value] of Object.entries(b) as [keyof UsageAdded, number][]) out[key] = (out[key] ?? 0) + value;
  return out;
}

/** True when new usage belongs in the page's view: a range that ends now, no agent or model filter. */
export function liveUsageApplies(view: { range: string; agentId: string; model: string }): boolean {
  return view.range !== "custom" && view.agentId === "" && view.model === "";
}
