/**
 * A fixed-window counter per key (login attempts per client address and per user id).
 *
 * `check` says whether a key is still under its limit and, when not, how many seconds until
 * the window resets (the Retry-After value); `hit` counts one attempt; `reset` forgets a key
 * (after a successful login for that user). The clock is injected, so tests move time
 * instead of waiting. Expired windows are swept lazily to keep the map small.
 */
export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  now: () => number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  readonly #options: RateLimiterOptions;
  readonly #windows = new Map<string, Window>();
  #lastSweep = 0;

  constructor(options: RateLimiterOptions) {
    this.#options = options;
  }

  check(key: string): RateDecision {
    const now = this.#options.now();
    this.#sweep(now);
    const w = this.#current(key, now);
    if (w === undefined || w.count < this.#options.limit) return { allowed: true };
    return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((w.start + this.#options.windowMs - now) / 1000)) };
  }

  hit(key: string): void {
    const now = this.#options.now();
    const w = this.#current(key, now);
    if (w === undefined) this.#windows.set(key, { start: now, count: 1 });
    else w.count += 1;
  }

  reset(key: string): void {
    this.#windows.delete(key);
  }

  #current(key: string, now: number): Window | undefined {
    const w = this.#windows.get(key);
    if (w === undefined) return undefined;
    if (now - w.start >= this.#options.windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return w;
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#options.windowMs) return;
    this.#lastSweep = now;
    for (const [key, w] of this.#windows) if (now - w.start >= this.#options.windowMs) this.#windows.delete(key);
  }
}
