/**
 * Cost of token usage: Σ tokens × price / 1e6 over the three buckets (cache_read,
 * cache_write, output), prices in USD per million tokens (SPEC §5, "Cost").
 *
 * Cost is never stored: every surface (CLI stats, server usage API, web charts) computes it
 * from recorded tokens and the current prices with this one function, so they agree. A
 * bucket that has tokens but no price makes the figure unknown (`undefined`): an unpriced
 * model is never reported as free.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import type { Pricing } from "./types.js";

export function costUsd(usage: TokenCounts, pricing: Pricing | undefined): number | undefined {
  if (pricing === undefined) return undefined;
  const buckets: Array<[number, number | undefined]> = [
    [usage.cache_read, pricing.cache_read],
    [usage.cache_write, pricing.cache_write],
    [usage.output, pricing.output],
  ];
  let total = 0;
  for (const [tokens, price] of buckets) {
    if (tokens === 0) continue;
    if (price === undefined) return undefined;
    total += (tokens * price) / 1_000_000;
  }
  return total;
}
