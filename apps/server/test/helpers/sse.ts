// Reading Server-Sent Events in tests: a parser over a fetch body that yields events in
// order, with helpers to wait for the one that matters. No timers: reads end when the
// server sends what the test waits for, or the stream ends.
export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** The reconnect delay the server suggested with `retry:`, once seen. */
  retryMs: number | undefined;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #done = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  get done(): boolean {
    return this.#done;
  }

  /** Reads until `predicate` holds for some event (returns it) or the stream ends (throws). */
  async until(predicate: (e: SseEvent, all: SseEvent[]) => boolean): Promise<SseEvent> {
    let checked = 0;
    for (;;) {
      for (; checked < this.events.length; checked++) {
        const e = this.events[checked]!;
        if (predicate(e, this.events)) return e;
      }
      if (this.#done) throw new Error(`the stream ended before the awaited event (got ${this.events.length} events)`);
      await this.#pull();
    }
  }

  /** Reads until a ping comment arrives. */
  async untilComment(text: string): Promise<void> {
    for (;;) {
      if (this.comments.includes(text)) return;
      if (this.#done) throw new Error("the stream ended before the comment");
      await this.#pull();
    }
  }

  async readToEnd(): Promise<SseEvent[]> {
    while (!this.#done) await this.#pull();
    return this.events;
  }

  async close(): Promise<void> {
    this.#done = true;
    await this.#reader.cancel().catch(() => undefined);
  }

  async #pull(): Promise<void> {
    const { done, value } = await this.#reader.read();
    if (done) {
      this.#done = true;
      return;
    }
    this.#buffer += this.#decoder.decode(value, { stream: true });
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end < 0) break;
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      this.#parse(block);
    }
  }

  #parse(block: string): void {
    let event = "message";
    let id: string | undefined;
    const data: string[] = [];
    let any = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const at = line.indexOf(":");
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
      any = true;
      if (field === "retry") this.retryMs = Number(value);
      else if (field === "event") event = value;
      else if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    // As the EventSource rules say, a block without data (the retry hint) dispatches nothing.
    if (any && data.length > 0) this.events.push({ event, id, data: data.join("\n") });
  }
}

/** Parsed JSON of an event's data. */
export function dataOf(e: SseEvent): any {
  return JSON.parse(e.data);
}

export function isServerEvent(e: SseEvent, type: string): boolean {
  return e.event === "server_event" && dataOf(e).type === type;
}

/** The OmniMessage events (default event name). */
export function messagesOf(events: SseEvent[]): any[] {
  return events.filter((e) => e.event === "message").map(dataOf);
}

/**
 * An id's place in its stream as one number, for ordering ids of one server process:
 * `NNN:LLLLLL` (a trace record) or `NNN:LLLLLL.<epoch>.<k>` (the k-th event after that record).
 */
export function seqOf(id: string | undefined): number {
  if (id === undefined) return -1;
  const m = /^(\d+):(\d+)(?:\.[0-9a-z]+\.(\d+))?$/.exec(id);
  if (m === null) throw new Error(`not a stream id: ${id}`);
  return Number(m[1]) * 1e13 + Number(m[2]) * 1e6 + Number(m[3] ?? 0);
}
