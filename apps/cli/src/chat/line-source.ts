/**
 * The lines the user types, handed to whoever is waiting for one: the prompt of the REPL
 * loop, or an approval question. A line nobody waits for goes, in an interactive chat while
 * a task runs, to `steer` (typing steers the running task); otherwise it is queued.
 *
 * Queueing is what makes a piped chat a script: `printf 'task one\ntask two\n/exit\n' |
 * penguin chat` runs the tasks one after another (and an approval question takes the next
 * line as its answer), instead of turning the second task into steering of the first just
 * because the pipe delivered it early. End of input is reported once the queue is drained.
 */
import type { Interface } from "node:readline";

export type NextLine = { kind: "line"; text: string } | { kind: "eof" } | { kind: "cancelled" };

type Waiter = (line: NextLine) => void;

export class LineSource {
  readonly #queue: string[] = [];
  readonly #waiters: Waiter[] = [];
  #ended = false;
  /** Set while a task runs in an interactive chat; returns false when it did not take the line. */
  steer: ((text: string) => boolean) | undefined;

  constructor(rl: Interface) {
    rl.on("line", (line) => this.push(line));
    rl.on("close", () => this.end());
  }

  push(text: string): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) return waiter({ kind: "line", text });
    if (this.steer?.(text) === true) return;
    this.#queue.push(text);
  }

  /** No more input (EOF, or the chat is exiting): every waiter gets `eof`. */
  end(): void {
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter({ kind: "eof" });
  }

  get ended(): boolean {
    return this.#ended && this.#queue.length === 0;
  }

  /** The next line; `cancelled` when `signal` aborts first (the line then stays for others). */
  next(signal?: AbortSignal): Promise<NextLine> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve({ kind: "line", text: queued });
    if (this.#ended) return Promise.resolve({ kind: "eof" });
    if (signal?.aborted === true) return Promise.resolve({ kind: "cancelled" });
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        resolve({ kind: "cancelled" });
      };
      const waiter: Waiter = (line) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
