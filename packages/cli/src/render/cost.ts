/**
 * Cost of token usage: Σ tokens × price / 1e6 over the three buckets (cache_read,
 * cache_write, output), prices in USD per million tokens (SPEC §5, "Cost").
 *
 * A bucket that has tokens but no price makes the whole figure unknown (`undefined`,
 * shown as "n/a"): an unpriced model is never reported as free.
 *
 * Core note: the server will need the same rule; this belongs in core next to `Pricing`
 * (reported to the lead). It is a pure function so moving it is a rename.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import type { Pricing } from "@penguin/models";

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
