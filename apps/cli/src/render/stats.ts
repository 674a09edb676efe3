/**
 * The stats line printed after each task:
 *
 *   [stats] context 12.3k/128k (10%) · tokens 10.2k in (8.0k cached) / 1.2k out · $0.0123 · 4.2s
 *
 * Context is the last request's total against the model's window (how full the next request
 * starts); tokens and cost are this task's, summed over its requests' `token_usage.request`
 * (snapshots of the session total are never summed). Cost uses the session's prices and is
 * "n/a" when the model has none (see cost.ts).
 */
import type { Session } from "@penguin/core";
import type { OmniMessage, TokenCounts } from "@penguin/omnimessage";
import type { Pricing } from "@penguin/models";
import { addTokens, zeroTokens } from "@penguin/omnimessage";
import type { Colors } from "../io/colors.js";
import { costUsd } from "@penguin/models";
import { compactNumber, duration, usd } from "./format.js";

export class TaskStats {
  #usage: TokenCounts = zeroTokens();
  #lastTotal: number | undefined;
  #requests = 0;

  observe(m: OmniMessage): void {
    if (m.type !== "event_msg" || m.origin !== undefined) return;
    const p = m.payload;
    if (p.type === "token_usage") {
      this.#usage = addTokens(this.#usage, p.request);
      this.#lastTotal = p.request.total;
    } else if (p.type === "request_begin") {
      this.#requests += 1;
    }
  }

  get usage(): TokenCounts {
    return { ...this.#usage };
  }

  get lastRequestTotal(): number | undefined {
    return this.#lastTotal;
  }

  get requests(): number {
    return this.#requests;
  }
}

export interface StatsLineInput {
  usage: TokenCounts;
  /** Last request's total tokens; falls back to the session's last known request. */
  lastRequestTotal: number | undefined;
  contextWindow: number | "unknown";
  pricing: Pricing | undefined;
  elapsedMs: number;
}

export function statsLine(input: StatsLineInput, c: Colors): string {
  const { usage, lastRequestTotal, contextWindow } = input;
  const used = lastRequestTotal === undefined ? "?" : compactNumber(lastRequestTotal);
  let context = `context ${used}/${contextWindow === "unknown" ? "unknown" : compactNumber(contextWindow)}`;
  if (lastRequestTotal !== undefined && contextWindow !== "unknown" && contextWindow > 0) {
    context += ` (${Math.round((lastRequestTotal / contextWindow) * 100)}%)`;
  }
  const input_ = usage.cache_read + usage.cache_write;
  const tokens = `tokens ${compactNumber(input_)} in (${compactNumber(usage.cache_read)} cached) / ${compactNumber(usage.output)} out`;
  const parts = [context, tokens, usd(costUsd(usage, input.pricing)), duration(input.elapsedMs)];
  return c.dim(`[stats] ${parts.join(" · ")}`);
}

/** The stats line of a task that ran on `session`, started at `started` (performance.now()). */
export function taskStatsLine(stats: TaskStats, session: Pick<Session, "lastRequestUsage" | "contextWindow" | "pricing">, started: number, c: Colors): string {
  return statsLine(
    {
      usage: stats.usage,
      lastRequestTotal: stats.lastRequestTotal ?? session.lastRequestUsage?.total,
      contextWindow: session.contextWindow,
      pricing: session.pricing,
      elapsedMs: performance.now() - started,
    },
    c,
  );
}
