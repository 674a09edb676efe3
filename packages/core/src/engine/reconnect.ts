/**
 * Reconnect policy: which model outcomes are retried inside a run, and how long to wait.
 *
 * `timeout`, `malformed` and `failed` are retried up to 5 times, waiting
 * min(2000·2^(n−1), 30000) ms before retry n (2, 4, 8, 16, 30 s), or longer when the
 * provider asked for it (429 Retry-After, capped at 2 minutes). `auth` and anything marked
 * `permanent` (including `configuration` errors: a bad base URL, an unknown host, a 404) are
 * never retried: the same request cannot start working. The announced wait
 * (`retry_in_ms`) and the real one come from the same function, so they cannot drift.
 */
import type { StopReason } from "@penguin/omnimessage";
import type { LLMOutcome } from "../interfaces.js";

export const MAX_RETRIES = 5;
const BASE_DELAY_MS = 2000;
const MAX_DELAY_MS = 30000;
const MAX_RETRY_AFTER_MS = 120000;

export function reconnectDelayMs(retry: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** (retry - 1), MAX_DELAY_MS);
}

/** True for outcomes the engine retries. Exhaustive on purpose: a new status must be classified. */
export function isRetryable(outcome: LLMOutcome): boolean {
  if (outcome.permanent || outcome.configuration === true) return false;
  const status: StopReason = outcome.status;
  switch (status) {
    case "timeout":
    case "malformed":
    case "failed":
      return true;
    case "completed":
    case "aborted":
    case "auth":
      return false;
  }
}

/** The wait before retry number `retry` (1-based) after this outcome. */
export function retryWaitMs(retry: number, outcome: LLMOutcome): number {
  const base = reconnectDelayMs(retry);
  const asked = Math.min(outcome.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return Math.max(base, asked);
}

/**
 * A wait that ends early when `signal` aborts or `skip()` is called ("Retry now").
 * `timer` is injectable so tests never sleep for real.
 */
export type SleepFn = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: SleepFn = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
