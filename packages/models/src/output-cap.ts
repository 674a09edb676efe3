/**
 * The output cap of one request: `min(max_tokens, window − estimated input − 1024)`.
 *
 * The input estimate is the serialised request at about four characters a token, which is
 * rough but errs the right way for prose and code. A window that is unset or below 4096 is
 * taken as 128000 (the reference's rule for unknown models). The 1024 tokens of slack leave room
 * for the estimate's error. The result is never below 1: a request that cannot fit is sent
 * anyway and the provider's own rejection (a permanent 400) tells the caller.
 */
import type { ModelEndpoint } from "./types.js";

export const DEFAULT_CONTEXT_WINDOW = 128000;
const SLACK_TOKENS = 1024;

/** About four characters a token. */
export function estimateTokens(text: string): number {
  return tokensForLength(text.length);
}

/** `estimateTokens` of a text known only by its length (wire-body.ts `serializedLength`). */
export function tokensForLength(chars: number): number {
  return Math.ceil(chars / 4);
}

export function effectiveWindow(endpoint: ModelEndpoint): number {
  const w = endpoint.contextWindow;
  return w === undefined || w < 4096 ? DEFAULT_CONTEXT_WINDOW : w;
}

/**
 * The cap to send. `fallbackMax` applies when the entry has no `maxTokens` (Anthropic requires
 * one); without either, undefined: send no cap and let the provider decide.
 */
export function outputCap(endpoint: ModelEndpoint, estimatedInput: number | (() => number), fallbackMax?: number): number | undefined {
  const max = endpoint.maxTokens ?? fallbackMax;
  if (max === undefined) return undefined;
  // A thunk spares serialising a long history twice when no cap is sent at all.
  const input = typeof estimatedInput === "number" ? estimatedInput : estimatedInput();
  const room = effectiveWindow(endpoint) - input - SLACK_TOKENS;
  return Math.max(1, Math.min(max, room));
}
