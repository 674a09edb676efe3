/**
 * Growing delays between login attempts, per key (a client address and user id pair).
 *
 * The first `freeAttempts` attempts of a key pass at once; after them each further attempt
 * must wait `firstDelayMs` after the one before it, the wait doubling with every attempt up to
 * `maxDelayMs` (with the defaults: 5 free, then 1 s, 2 s, 4 s … capped at 15 min). `check`
 * says whether an attempt may run now and, when not, in how many seconds (the Retry-After
 * value); `hit` counts one admitted attempt; `reset` forgets a key (after a success). A key
 * untouched for `forgetAfterMs` is forgotten, and such keys are swept lazily, so the map
 * stays small. Only admitted attempts count: a refused one neither checks a password nor
 * lengthens the wait. The clock is injected (runtime/clock.ts `Now`), so tests move time
 * instead of waiting.
 *
 * Where the counts live is an `AttemptBook`: a Map in this process by default, or the facts
 * database (db/login-attempts-store.ts), which every server node on one PostgreSQL shares, so a
 * limit cannot be dodged by trying another node. `admit` checks and counts in one step of the
 * book (`atomically`: one transaction, a per-key lock on PostgreSQL).
 */
import type { Now } from "../runtime/clock.js";

export interface BackoffOptions {
  freeAttempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
  now: Now;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };

export interface Attempts {
  count: number;
  lastAt: number;
}

/** Where a limiter keeps its counts. */
export interface AttemptBook {
  get(key: string): Attempts | undefined;
  set(key: string, attempts: Attempts): void;
  delete(key: string): void;
  /** Forgets every key last tried before `cutoff`. */
  deleteIdleSince(cutoff: number): void;
  /** Runs `work` as one step for `key` against every other user of the same book. */
  atomically<T>(key: string, work: () => T): T;
}

export class MemoryAttemptBook implements AttemptBook {
  readonly #attempts = new Map<string, Attempts>();
  get(key: string): Attempts | undefined {
    return this.#attempts.get(key);
  }
  set(key: string, attempts: Attempts): void {
    this.#attempts.set(key, attempts);
  }
  delete(key: string): void {
    this.#attempts.delete(key);
  }
  deleteIdleSince(cutoff: number): void {
    for (const [key, a] of this.#attempts) if (a.lastAt <= cutoff) this.#attempts.delete(key);
  }
  atomically<T>(_key: string, work: () => T): T {
    return work();
  }
}

export class BackoffLimiter {
  readonly #options: BackoffOptions;
  readonly #attempts: AttemptBook;
  #lastSweep = 0;

  constructor(options: BackoffOptions, book: AttemptBook = new MemoryAttemptBook()) {
    this.#options = options;
    this.#attempts = book;
  }

  /** `check`, then `hit` when allowed, as one step of the book. */
  admit(key: string): RateDecision {
    return this.#attempts.atomically(key, () => {
      const decision = this.check(key);
      if (decision.allowed) this.hit(key);
      return decision;
    });
  }

  /** How long an attempt after `count` admitted ones must wait after the last (0 while free). */
  delayAfter(count: number): number {
    const { freeAttempts, firstDelayMs, maxDelayMs } = this.#options;
    if (count < freeAttempts) return 0;
    return Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(count - freeAttempts, 40));
  }

  check(key: string): RateDecision {
    const now = this.#options.now();
    this.#sweep(now);
    const a = this.#current(key, now);
    if (a === undefined) return { allowed: true };
    const wait = a.lastAt + this.delayAfter(a.count) - now;
    return wait <= 0 ? { allowed: true } : { allowed: false, retryAfterSec: Math.max(1, Math.ceil(wait / 1000)) };
  }

  hit(key: string): void {
    const now = this.#options.now();
    const a = this.#current(key, now);
    this.#attempts.set(key, a === undefined ? { count: 1, lastAt: now } : { count: a.count + 1, lastAt: now });
  }

  reset(key: string): void {
    this.#attempts.delete(key);
  }

  #current(key: string, now: number): Attempts | undefined {
    const a = this.#attempts.get(key);
    if (a !== undefined && now - a.lastAt >= this.#options.forgetAfterMs) {
      this.#attempts.delete(key);
      return undefined;
    }
    return a;
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#options.forgetAfterMs) return;
    this.#lastSweep = now;
    this.#attempts.deleteIdleSince(now - this.#options.forgetAfterMs);
  }
}
