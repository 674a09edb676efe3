/**
 * Keeps a replay's records in the recorded order where the engine leaves the order to
 * timing: an approval decided while the response still streams, a tool that finishes
 * before or after its request ends. Live, those interleavings came from the network and the
 * tools; in a replay everything is instant, so the replay's model and tools wait until the
 * new trace holds as many records as the recording had before the one they are about to
 * produce.
 *
 * A replay that has diverged may never get there (the record it waits for is not coming),
 * so every wait also ends after `stallMs` without progress and the replay goes on; the
 * verdict then names the first record that differs.
 */
interface Waiter {
  target: number;
  timer: NodeJS.Timeout | undefined;
  done: () => void;
}

export class RecordSequencer {
  #written = 0;
  readonly #stallMs: number;
  readonly #waiters = new Set<Waiter>();

  constructor(stallMs = 1000) {
    this.#stallMs = stallMs;
  }

  get written(): number {
    return this.#written;
  }

  /** One more record is in the replay's trace: release the waits it completes, re-arm the rest. */
  recorded(): void {
    this.#written += 1;
    for (const w of [...this.#waiters]) {
      if (this.#written >= w.target) w.done();
      else this.#arm(w);
    }
  }

  #arm(w: Waiter): void {
    clearTimeout(w.timer);
    w.timer = setTimeout(w.done, this.#stallMs);
  }

  /** Resolves once `target` records are written, or after `stallMs` without a new record. */
  waitFor(target: number, signal?: AbortSignal): Promise<void> {
    if (this.#written >= target || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        target,
        timer: undefined,
        done: () => {
          clearTimeout(waiter.timer);
          this.#waiters.delete(waiter);
          signal?.removeEventListener("abort", waiter.done);
          resolve();
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", waiter.done, { once: true });
      this.#arm(waiter);
    });
  }
}
