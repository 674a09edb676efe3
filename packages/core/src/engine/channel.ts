/**
 * Channel: many producers, one pulling consumer.
 *
 * The engine has several producers running at once (the model stream, the approval chain,
 * each running tool) and exactly one consumer (the `session.run` generator the host
 * iterates). Producers `push` without waiting; the consumer pulls in push order. `close`
 * ends the stream after what is queued; `fail` ends it with an error for the consumer.
 * Unbounded on purpose: producers must never block on a slow host, and a turn's volume is
 * bounded by the model and the tool output caps.
 */
export class Channel<T> {
  readonly #items: T[] = [];
  #waiter: (() => void) | undefined;
  #closed = false;
  #error: unknown = undefined;

  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  fail(error: unknown): void {
    this.#error = error ?? new Error("channel failed");
    this.close();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void> {
    for (;;) {
      while (this.#items.length > 0) yield this.#items.shift() as T;
      if (this.#closed) {
        if (this.#error !== undefined) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }
}
