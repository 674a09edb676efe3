/**
 * Reading a Server-Sent Events body as the EventSource rules say: lines split at CR, LF or
 * CRLF, `data:` lines joined with "\n", `id:` remembered as the last event id (also across
 * events that carry none), `retry:` as the suggested reconnect delay, comments ignored,
 * and a block without data dispatching nothing. `penguin attach` uses it on a session's
 * stream; it is independent of the renderer so the parsing is testable on its own.
 */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  #buffer = "";
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  #pendingCr = false;

  /** Feeds decoded text; returns the events it completed, in order. */
  push(text: string): SseEvent[] {
    let chunk = text;
    if (this.#pendingCr && chunk.startsWith("\n")) chunk = chunk.slice(1);
    this.#pendingCr = false;
    this.#buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const at = this.#buffer.search(/[\r\n]/);
      if (at < 0) break;
      let skip = 1;
      if (this.#buffer[at] === "\r") {
        if (at + 1 === this.#buffer.length) this.#pendingCr = true;
        else if (this.#buffer[at + 1] === "\n") skip = 2;
      }
      const line = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + skip);
      const event = this.#line(line);
      if (event !== undefined) out.push(event);
    }
    return out;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.#id !== undefined) this.lastEventId = this.#id;
      const event = this.#data.length === 0 ? undefined : { event: this.#event === "" ? "message" : this.#event, data: this.#data.join("\n"), id: this.#id };
      this.#data = [];
      this.#event = "";
      this.#id = undefined;
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }
}
