/**
 * Provider usage → TokenCounts `{cache_read, cache_write, output, total}`.
 *
 * One rule for every protocol: `cache_read` is the prompt served from the provider's cache;
 * `cache_write` is the rest of the prompt (processed, maybe written to the cache; for
 * Anthropic `input_tokens + cache_creation_input_tokens`); `output` is everything generated,
 * thinking included; `total` is the sum of the three (never the provider's own total, which
 * some providers compute differently).
 *
 * Usage snapshots inside one stream are cumulative, so reducers keep the last snapshot and
 * map it once at the end; nothing here ever adds two snapshots.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import { isRecord, type JsonRecord } from "./json.js";

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;
}

function rec(v: unknown): JsonRecord {
  return isRecord(v) ? v : {};
}

export function tokenCounts(cacheRead: number, cacheWrite: number, output: number): TokenCounts {
  return { cache_read: cacheRead, cache_write: cacheWrite, output, total: cacheRead + cacheWrite + output };
}

/** Chat Completions: `prompt_tokens` (cached inside, also DeepSeek's `prompt_cache_hit_tokens`), `completion_tokens`. */
export function usageFromChat(u: unknown): TokenCounts {
  const o = rec(u);
  const prompt = num(o.prompt_tokens);
  const cached = Math.min(prompt, num(rec(o.prompt_tokens_details).cached_tokens) || num(o.prompt_cache_hit_tokens));
  return tokenCounts(cached, prompt - cached, num(o.completion_tokens));
}

/** Responses: `input_tokens` (cached inside `input_tokens_details`), `output_tokens` (reasoning inside). */
export function usageFromResponses(u: unknown): TokenCounts {
  const o = rec(u);
  const input = num(o.input_tokens);
  const cached = Math.min(input, num(rec(o.input_tokens_details).cached_tokens));
  return tokenCounts(cached, input - cached, num(o.output_tokens));
}

/** Anthropic: the three input buckets are disjoint; `output_tokens` includes thinking. */
export function usageFromAnthropic(u: unknown): TokenCounts {
  const o = rec(u);
  return tokenCounts(
    num(o.cache_read_input_tokens),
    num(o.input_tokens) + num(o.cache_creation_input_tokens),
    num(o.output_tokens),
  );
}

/** Gemini: `promptTokenCount` includes `cachedContentTokenCount`; output is candidates + thoughts. */
export function usageFromGemini(u: unknown): TokenCounts {
  const o = rec(u);
  const prompt = num(o.promptTokenCount) + num(o.toolUsePromptTokenCount);
  const cached = Math.min(prompt, num(o.cachedContentTokenCount));
  return tokenCounts(cached, prompt - cached, num(o.candidatesTokenCount) + num(o.thoughtsTokenCount));
}
