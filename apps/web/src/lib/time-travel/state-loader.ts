/**
 * Loads time-travel states lazily, caches them per position, and never floods the server:
 * at most ONE request is in flight. The scrubber says which positions it wants now (the
 * cursor's, then the previous step's for the diff); a newer wish replaces the older one, so
 * while play advances the cursor faster than the server answers, the steps in between are
 * simply never asked for: when the request in flight ends, the loader asks for what is
 * wanted at that moment. A position already cached is answered at once, with no request.
 *
 * The fetch function is injected (the API call in the app, a deferred promise in tests), and
 * the loader only reports through `onChange`, so it holds no framework state of its own.
 */

export interface StateLoader<S> {
  /** The positions wanted now, most important first; replaces the previous wish. */
  want(positions: readonly string[]): void;
  /** The cached state at a position, if it has been loaded. */
  get(position: string): S | undefined;
  /** The error of the last failed load of a position still wanted, if any. */
  error(position: string): string | undefined;
  /** Ask again for a position whose load failed. */
  retry(position: string): void;
  /** True while a load of this position is in flight. */
  loading(position: string): boolean;
  /** Forget everything (another session was chosen); an answer still in flight is dropped. */
  reset(): void;
}

export function createStateLoader<S>(options: {
  fetch: (position: string) => Promise<S>;
  onChange: () => void;
  describeError?: (e: unknown) => string;
  /** How many states to keep (least recently loaded are dropped first). */
  capacity?: number;
}): StateLoader<S> {
  const capacity = options.capacity ?? 500;
  const describeError = options.describeError ?? ((e: unknown) => (e instanceof Error ? e.message : String(e)));
  const cache = new Map<string, S>();
  const errors = new Map<string, string>();
  let wanted: readonly string[] = [];
  let inFlight: string | undefined;
  let generation = 0;

  const next = (): string | undefined => wanted.find((p) => !cache.has(p) && !errors.has(p));

  const pump = (): void => {
    if (inFlight !== undefined) return;
    const position = next();
    if (position === undefined) return;
    inFlight = position;
    const mine = generation;
    options.onChange();
    options.fetch(position).then(
      (state) => {
        if (mine !== generation) return;
        cache.set(position, state);
        if (cache.size > capacity) cache.delete(cache.keys().next().value!);
        settle();
      },
      (e: unknown) => {
        if (mine !== generation) return;
        errors.set(position, describeError(e));
        settle();
      },
    );
  };

  const settle = (): void => {
    inFlight = undefined;
    options.onChange();
    pump();
  };

  return {
    want(positions) {
      wanted = [...positions];
      // A failure is reported once per wish: asking again (moving away and back) retries.
      for (const p of [...errors.keys()]) if (!wanted.includes(p)) errors.delete(p);
      pump();
    },
    get: (position) => cache.get(position),
    error: (position) => errors.get(position),
    retry(position) {
      errors.delete(position);
      options.onChange();
      pump();
    },
    loading: (position) => inFlight === position,
    reset() {
      generation += 1;
      cache.clear();
      errors.clear();
      wanted = [];
      inFlight = undefined;
      options.onChange();
    },
  };
}
