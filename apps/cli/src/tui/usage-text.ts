/**
 * The session's usage as the chat shows it, in the status line and in `/cost`: tokens in and
 * out and the cost so far (its `usage` and prices), and the context used by the last request
 * against the model's window. Apart from status-line.ts so that the status line, which the
 * first frame draws before any session exists, does not load the models package.
 */
import { costUsd } from "@penguin/models";
import type { Session } from "@penguin/core";
import { compactNumber, usd } from "../render/format.js";

export function contextText(session: Session): string {
  const window = session.contextWindow;
  const last = session.lastRequestUsage?.total;
  const used = last === undefined ? "?" : compactNumber(last);
  const pct = last !== undefined && window !== "unknown" && window > 0 ? ` (${Math.round((last / window) * 100)}%)` : "";
  return `context ${used}/${window === "unknown" ? "?" : compactNumber(window)}${pct}`;
}

export function usageText(session: Session): { tokens: string; cost: string } {
  const u = session.usage;
  return { tokens: `tokens ${compactNumber(u.cache_read + u.cache_write)} in / ${compactNumber(u.output)} out`, cost: usd(costUsd(u, session.pricing)) };
}
