/**
 * Time seams for the runtime: a `now()` clock and a `Ticker` for periodic work (SSE pings,
 * idle eviction). Production uses the wall clock and unref'd intervals; tests inject a
 * manual ticker and advance it, so no test waits for real time.
 */
export type Now = () => number;

export interface Ticker {
  /** Calls `fn` every `ms`; returns the function that stops it. */
  every(ms: number, fn: () => void): () => void;
}

export const realTicker: Ticker = {
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** A ticker driven by hand: `advance(ms)` fires every interval that came due, in time order. */
export class ManualTicker implements Ticker {
  #now = 0;
  #next = 1;
  readonly #timers = new Map<number, { every: number; due: number; fn: () => void }>();

  every(ms: number, fn: () => void): () => void {
    const id = this.#next++;
    this.#timers.set(id, { every: ms, due: this.#now + ms, fn });
    return () => void this.#timers.delete(id);
  }

  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      let first: { id: number; due: number } | undefined;
      for (const [id, t] of this.#timers) if (t.due <= until && (first === undefined || t.due < first.due)) first = { id, due: t.due };
      if (first === undefined) break;
      const timer = this.#timers.get(first.id);
      if (timer === undefined) continue;
      this.#now = timer.due;
      timer.due += timer.every;
      timer.fn();
    }
    this.#now = until;
  }

  get active(): number {
    return this.#timers.size;
  }
}
