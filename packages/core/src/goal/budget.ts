/**
 * Goal budgets: how many tokens a goal may spend, written `500k`, `2m`, `12000` or `-1`
 * (unlimited). Spending is Σ(request.total − cache_read) over every request of the goal,
 * subagents included: cached prompt tokens are cheap and would otherwise dominate.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import { UNLIMITED } from "../deciders/goals.js";

export { UNLIMITED };

/** Parse a budget; undefined when the text is not one. */
export function parseBudget(text: string | number | undefined): number | undefined {
  if (text === undefined) return UNLIMITED;
  if (typeof text === "number") return Number.isInteger(text) && (text > 0 || text === UNLIMITED) ? text : undefined;
  const m = /^\s*(-1|\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(text);
  if (!m) return undefined;
  if (m[1] === "-1") return m[2] === "" ? UNLIMITED : undefined;
  const n = Number(m[1]) * (m[2]?.toLowerCase() === "k" ? 1_000 : m[2]?.toLowerCase() === "m" ? 1_000_000 : 1);
  return Number.isFinite(n) && n >= 1 ? Math.round(n) : undefined;
}

/** Tokens a message adds to the goal's spending (only token_usage events count). */
export function spentBy(m: OmniMessage): number {
  if (m.type !== "event_msg" || m.payload.type !== "token_usage") return 0;
  return Math.max(0, m.payload.request.total - m.payload.request.cache_read);
}

export function formatBudget(budget: number): string {
  return budget === UNLIMITED ? "unlimited" : `${budget} tokens`;
}
