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
 * ring instead of the server buffering without bound. The express adapter writes the frames
 * straight to the socket (`directSseBody`); the Response body serves any other reader.
 */
import type { Ticker } from "../runtime/clock.js";

export interface SseFrame {
  event?: string;
  id?: string;
  data: string;
}

const LINE_BREAK = /[\r\n]/;

export function formatSse(frame: SseFrame): string {
  let out = "";
  if (frame.event !== undefined) out += `event: ${singleLine("event", frame.event)}\n`;
  if (frame.id !== undefined) out += `id: ${singleLine("id", frame.id)}\n`;
  // JSON never holds a raw line break: the common frame is one data line, built without a split.
  if (!LINE_BREAK.test(frame.data)) return `${out}data: ${frame.data}\n\n`;
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

/**
 * Where an attached stream's frames go when the HTTP layer writes them itself (the express
 * adapter, onto the socket): `write` answers how many bytes are still waiting to go out.
 */
export interface SseWriter {
  write(frame: string): number;
  end(): void;
}

/** A stream the HTTP layer can write straight to its socket: `attach` once, instead of reading the body. */
export interface DirectSseBody {
  /** Sends what was queued, then every frame as it comes, until the stream closes (which ends the writer). */
  attach(writer: SseWriter): void;
  /** The client went away. */
  cancel(): void;
}

const directBodies = new WeakMap<Response, DirectSseBody>();

/** The direct form of an SSE Response made by openSseStream (undefined for any other Response). */
export function directSseBody(response: Response): DirectSseBody | undefined {
  return directBodies.get(response);
}

/**
 * The stream's frames go to one consumer, chosen by whoever comes first: the HTTP layer,
 * which attaches a writer (`directSseBody`) and gets each frame as the string it is, written
 * to the socket with no copy per subscriber (a 200-session server sends ~40,000 frames per
 * second at peak; as bytes through the Response body each cost an encoded copy, a read
 * request and two promises, most of the server's garbage); or a reader of the Response body
 * (tests, any fetch-style consumer), which gets them as UTF-8 bytes. Until one is there,
 * frames wait in a queue, bounded by `maxBufferedBytes` like the consumer's own buffer.
 */
export function openSseStream(setup: (sink: SseSink) => () => void, options: SseStreamOptions): Response {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  let stopPing: (() => void) | undefined;
  let closed = false;
  let queue: string[] = [OPENING_FRAME];
  let queuedBytes = OPENING_FRAME.length;
  let writer: SseWriter | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  let bytesMode = false;

  const finish = () => {
    if (closed) return;
    closed = true;
    stopPing?.();
    cleanup?.();
    options.signal?.removeEventListener("abort", finish);
    writer?.end();
    if (bytesMode) closeController();
  };

  const closeController = () => {
    try {
      controllerRef?.close();
    } catch {
      // already closed or errored by the reader side
    }
  };

  const sink: SseSink = {
    send(frame) {
      if (closed) return;
      if (writer !== undefined) {
        if (writer.write(frame) > options.maxBufferedBytes) finish();
      } else if (bytesMode && controllerRef !== undefined) {
        controllerRef.enqueue(encoder.encode(frame));
        if ((controllerRef.desiredSize ?? 0) < -options.maxBufferedBytes) finish();
      } else {
        queue.push(frame);
        queuedBytes += frame.length;
        if (queuedBytes > options.maxBufferedBytes) finish();
      }
    },
    close: finish,
    get closed() {
      return closed;
    },
  };

  const takeQueue = (): string[] => {
    const frames = queue;
    queue = [];
    queuedBytes = 0;
    return frames;
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
      },
      // With a high-water mark of 0, pull runs only when someone reads: the body's reader is the consumer.
      pull(controller) {
        if (bytesMode || writer !== undefined) return;
        bytesMode = true;
        for (const frame of takeQueue()) controller.enqueue(encoder.encode(frame));
        if (closed) closeController();
      },
      cancel() {
        finish();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );

  const response = new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
  directBodies.set(response, {
    attach(w) {
      if (writer !== undefined || bytesMode) throw new Error("an SSE stream has one consumer: it is already attached or read");
      let buffered = 0;
      for (const frame of takeQueue()) buffered = w.write(frame);
      if (closed) {
        w.end();
        return;
      }
      writer = w;
      if (buffered > options.maxBufferedBytes) finish();
    },
    cancel: finish,
  });

  // Subscribing happens now, synchronously (a replay and the live feed cannot interleave).
  const release = setup(sink);
  if (closed) {
    release();
    return response;
  }
  cleanup = release;
  stopPing = options.ticker.every(options.pingMs, () => sink.send(PING_FRAME));
  if (options.signal?.aborted) finish();
  else options.signal?.addEventListener("abort", finish, { once: true });
  return response;
}
