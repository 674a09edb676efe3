/**
 * Server-Sent Events on the wire: frame formatting and the streaming Response.
 *
 * Framing: `event:` and `id:` lines (which must not contain CR or LF: a programmer error,
 * thrown), one `data:` line per line of the payload (CR, LF and CRLF all split, so no line
 * break in a payload can end the event early or inject a field), a blank line to end the
 * event. Every stream opens with a `retry:` hint (how long a browser waits before it
 * reconnects) and a comment; a comment line `: ping` keeps proxies and idle sockets from
 * closing a quiet stream.
 *
 * `openSseStream` returns the Response and hands the caller a sink. The caller subscribes
 * the sink to a channel inside `setup` (synchronously, so a replay and the live feed cannot
 * interleave) and returns its cleanup, which runs once when the client goes away or the
 * server closes the sink. A sink whose client reads too slowly (more than `maxBufferedBytes`
 * queued) is closed: the client reconnects with Last-Event-ID and catches up from the replay
 * ring instead of the server buffering without bound.
 */
import type { Ticker } from "../runtime/clock.js";

export interface SseFrame {
  event?: string;
  id?: string;
  data: string;
}

export function formatSse(frame: SseFrame): string {
  let out = "";
  if (frame.event !== undefined) out += `event: ${singleLine("event", frame.event)}\n`;
  if (frame.id !== undefined) out += `id: ${singleLine("id", frame.id)}\n`;
  for (const line of frame.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export const PING_FRAME = ": ping\n\n";

/** The reconnect delay suggested to clients, in milliseconds. */
export const RETRY_MS = 2000;

/** The first bytes of every stream: the retry hint and a comment (no data, so no event). */
export const OPENING_FRAME = `retry: ${RETRY_MS}\n: connected\n\n`;

function singleLine(field: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`SSE ${field} must be a single line (got ${JSON.stringify(value)}): strip CR/LF before framing`);
  return value;
}

export interface SseSink {
  send(frame: string): void;
  close(): void;
  readonly closed: boolean;
}

export interface SseStreamOptions {
  ticker: Ticker;
  pingMs: number;
  maxBufferedBytes: number;
  /** Aborts when the client disconnects (the request's signal). */
  signal?: AbortSignal;
}

export function openSseStream(setup: (sink: SseSink) => () => void, options: SseStreamOptions): Response {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  let stopPing: (() => void) | undefined;
  let closed = false;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;

  const finish = () => {
    if (closed) return;
    closed = true;
    stopPing?.();
    cleanup?.();
    options.signal?.removeEventListener("abort", finish);
    try {
      controllerRef?.close();
    } catch {
      // already closed or errored by the reader side
    }
  };

  const sink: SseSink = {
    send(frame) {
      if (closed || controllerRef === undefined) return;
      controllerRef.enqueue(encoder.encode(frame));
      if ((controllerRef.desiredSize ?? 0) < -options.maxBufferedBytes) finish();
    },
    close: finish,
    get closed() {
      return closed;
    },
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        controller.enqueue(encoder.encode(OPENING_FRAME));
        const release = setup(sink);
        if (closed) {
          release();
          return;
        }
        cleanup = release;
        stopPing = options.ticker.every(options.pingMs, () => sink.send(PING_FRAME));
        if (options.signal?.aborted) finish();
        else options.signal?.addEventListener("abort", finish, { once: true });
      },
      cancel() {
        finish();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );

  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
