/**
 * The SSE transport: one long-lived `GET` that yields server-sent events, reconnects by
 * itself, and resumes where it left off.
 *
 * Why fetch and not EventSource: we need to send `Last-Event-ID` on reconnects we start
 * ourselves (network back, liveness timeout), to tell a 401/404 (stop for good) from a
 * network failure (retry), and to drive it from tests with a fake fetch and fake timers.
 *
 * Wire rules (SPEC §9, server http/sse.ts):
 * - default events carry an OmniMessage as JSON; `event: server_event` carries `{type, …}`;
 *   `: ping` comments arrive every 20 s and only prove the connection is alive;
 * - ids are trace positions (`NNN:LLLLLL`, or `NNN:LLLLLL.<epoch>.<k>` for what is not a trace
 *   record; lib/stream/stitch.ts orders them); the newest id seen is sent back as
 *   `Last-Event-ID` when we reconnect, also to a restarted server, and the server replays
 *   exactly the missed records from the trace, or answers with a `resync_required` server
 *   event when the id names no position it has (the caller then refetches history).
 *
 * Reconnect rules:
 * - the stream ending, a network error, a 5xx or 429: reconnect after a back-off (1 s,
 *   doubling, at most 15 s; reset once a connection opens);
 * - 401, 403, 404, 410: closed for good (`onClosed` says why);
 * - nothing received for `idleTimeoutMs` (default 45 s, > two pings): the connection is
 *   presumed dead (a lost network often never errors a fetch) and is replaced;
 * - `reconnectNow()` (the page calls it on the browser's `online` event) skips the wait.
 *
 * This module knows nothing of OmniMessage: it hands over raw frames; api/stream-events.ts
 * decodes them with the protocol guards.
 */

export interface SseFrame {
  /** `message` for default events. */
  event: string;
  data: string;
  id: string | undefined;
}

export type SseStatus = "connecting" | "open" | "reconnecting" | "closed";

/** Timer seam: `setTimeout` returns the function that cancels it. */
export interface SseTimers {
  setTimeout(fn: () => void, ms: number): () => void;
}

export interface SseOptions {
  url: string;
  onFrame(frame: SseFrame): void;
  /** Each successful (re)connection, after the response headers arrived (the server has subscribed us). */
  onOpen?(info: { reconnect: boolean; lastEventId: string | undefined }): void;
  onStatus?(status: SseStatus): void;
  /** Closed for good: an HTTP status that retrying cannot fix. */
  onClosed?(reason: { status: number }): void;
  /** Start from this id (resume a stream the page already followed). */
  lastEventId?: string;
  fetch?: typeof fetch;
  timers?: SseTimers;
  /** Back-off before reconnect attempt `n` (1-based). */
  backoffMs?: (attempt: number) => number;
  idleTimeoutMs?: number;
}

export interface SseConnection {
  close(): void;
  reconnectNow(): void;
  readonly lastEventId: string | undefined;
  readonly status: SseStatus;
}

const FATAL = new Set([401, 403, 404, 410]);

export function defaultBackoff(attempt: number): number {
  return Math.min(15_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

const realTimers: SseTimers = {
  setTimeout(fn, ms) {
    const handle = globalThis.setTimeout(fn, ms);
    return () => globalThis.clearTimeout(handle);
  },
};

/**
 * Incremental SSE parser (WHATWG rules): lines end in CRLF, LF or CR, even split across
 * chunks; `data:` lines join with `\n`; a blank line dispatches; `id:` updates the last id
 * (even for events without data); lines starting with `:` are comments.
 */
export class SseParser {
  #buffer = "";
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  #sawCr = false;
  lastEventId: string | undefined;

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
  }

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseFrame[] {
    const out: SseFrame[] = [];
    let chunk = text;
    if (this.#sawCr && chunk.startsWith("\n")) chunk = chunk.slice(1);
    this.#sawCr = false;
    this.#buffer += chunk;
    for (;;) {
      const at = this.#buffer.search(/[\r\n]/);
      if (at < 0) break;
      const line = this.#buffer.slice(0, at);
      let skip = 1;
      if (this.#buffer[at] === "\r") {
        if (at + 1 < this.#buffer.length) {
          if (this.#buffer[at + 1] === "\n") skip = 2;
        } else this.#sawCr = true;
      }
      this.#buffer = this.#buffer.slice(at + skip);
      const frame = this.#line(line);
      if (frame !== undefined) out.push(frame);
    }
    return out;
  }

  #line(line: string): SseFrame | undefined {
    if (line === "") {
      if (this.#id !== undefined) this.lastEventId = this.#id;
      const hadData = this.#data.length > 0;
      const frame: SseFrame = { event: this.#event === "" ? "message" : this.#event, data: this.#data.join("\n"), id: this.#id };
      this.#data = [];
      this.#event = "";
      this.#id = undefined;
      return hadData ? frame : undefined;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    return undefined;
  }
}

export function openSse(options: SseOptions): SseConnection {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const timers = options.timers ?? realTimers;
  const backoff = options.backoffMs ?? defaultBackoff;
  const idleMs = options.idleTimeoutMs ?? 45_000;
  let lastEventId = options.lastEventId;
  let status: SseStatus = "connecting";
  let closed = false;
  let attempt = 0;
  let opened = false;
  let controller: AbortController | undefined;
  let retryTimer: (() => void) | undefined;
  let idleTimer: (() => void) | undefined;

  const setStatus = (s: SseStatus) => {
    if (status === s) return;
    status = s;
    options.onStatus?.(s);
  };

  const clearIdle = () => {
    idleTimer?.();
    idleTimer = undefined;
  };

  const armIdle = () => {
    clearIdle();
    idleTimer = timers.setTimeout(() => {
      idleTimer = undefined;
      controller?.abort();
    }, idleMs);
  };

  const schedule = () => {
    if (closed) return;
    clearIdle();
    setStatus("reconnecting");
    attempt += 1;
    retryTimer = timers.setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, backoff(attempt));
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const ctrl = new AbortController();
    controller = ctrl;
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    let res: Response;
    try {
      res = await doFetch(options.url, { headers, credentials: "same-origin", signal: ctrl.signal, cache: "no-store" });
    } catch {
      if (controller === ctrl) schedule();
      return;
    }
    if (closed || controller !== ctrl) {
      ctrl.abort();
      return;
    }
    if (!res.ok || res.body === null) {
      if (FATAL.has(res.status)) {
        closed = true;
        setStatus("closed");
        options.onClosed?.({ status: res.status });
        return;
      }
      schedule();
      return;
    }
    const reconnect = opened;
    opened = true;
    attempt = 0;
    setStatus("open");
    armIdle();
    options.onOpen?.({ reconnect, lastEventId });
    const parser = new SseParser(lastEventId);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || closed || controller !== ctrl) break;
        armIdle();
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          if (frame.id !== undefined) lastEventId = frame.id;
          if (closed || controller !== ctrl) break;
          options.onFrame(frame);
        }
        if (parser.lastEventId !== undefined) lastEventId = parser.lastEventId;
      }
    } catch {
      // network error mid-stream: reconnect below
    }
    try {
      reader.cancel().catch(() => undefined);
    } catch {
      // already released
    }
    if (!closed && controller === ctrl) schedule();
  };

  void connect();

  return {
    close() {
      closed = true;
      retryTimer?.();
      clearIdle();
      controller?.abort();
      setStatus("closed");
    },
    reconnectNow() {
      if (closed) return;
      if (retryTimer !== undefined) {
        retryTimer();
        retryTimer = undefined;
        void connect();
        return;
      }
      // An open connection that may be dead: replace it.
      const ctrl = controller;
      controller = undefined;
      ctrl?.abort();
      attempt = 0;
      setStatus("reconnecting");
      void connect();
    },
    get lastEventId() {
      return lastEventId;
    },
    get status() {
      return status;
    },
  };
}
