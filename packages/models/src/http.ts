/**
 * The one HTTP call of a model request: POST the body, wait for the response to start, then
 * hand out body chunks, with two timeouts and the caller's abort signal.
 *
 * - Start timeout: no response headers within `timeoutMs` → `start_timeout`.
 * - Idle timeout: the timer re-arms before every body read; a silent gap longer than
 *   `timeoutMs` → `idle_timeout` (a hung stream never hangs the caller).
 * - Abort: the caller's signal cancels the fetch or the pending read → `aborted`.
 * Both timers and the abort go through one AbortController; which of them fired is recorded
 * here, when it fires, so the rejection that follows is classified without inspecting it.
 * Anything else that rejects is a network failure. Timers and fetch are injectable.
 *
 * The transport: without a `fetch` the request goes over node:http(s) (node-transport.ts, the
 * default: Node 20's fetch costs a CLI start ~25 ms to compile); with one (a test's scripted
 * fetch, the proxy's undici fetch) through that fetch. Both are read the same way below.
 */
import type { Timers } from "./types.js";
import { causeCodeOf, detailOf, type Failure, type HeaderReader } from "./errors.js";
import { openOverNodeHttp, type TransportRequest, type TransportResponse } from "./node-transport.js";

/** A request ready to send: the protocol adapters build these. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  /**
   * JSON text; bytes when tool outputs' JSON was copied from the trace (wire-body.ts); chunks,
   * written one after another, when the history list came from the wire cache (wire-cache.ts).
   */
  body: WireBody;
}

export type WireBody = string | Uint8Array | readonly Uint8Array[];

/** The body as one string or buffer (the fetch transport, and inspection): chunks are joined. */
export function wholeBody(body: WireBody): string | Uint8Array {
  return typeof body === "string" || body instanceof Uint8Array ? body : Buffer.concat(body);
}

export type FetchFn = typeof fetch;

export interface SendOptions {
  /** Undefined: node:http(s), the default transport. */
  fetch: FetchFn | undefined;
  timeoutMs: number;
  timers: Timers;
  signal: AbortSignal | undefined;
  method?: "POST" | "GET";
}

export type ReadResult =
  | { kind: "chunk"; bytes: Uint8Array }
  | { kind: "end" }
  | { kind: "failure"; failure: Failure };

/** An open response. Always `close()` it (the gateway does so in a `finally`). */
export interface OpenResponse {
  status: number;
  headers: HeaderReader;
  /** The next piece of the body, under the idle timeout. */
  read(): Promise<ReadResult>;
  /** The whole body as text (error bodies), capped at `limit` characters. */
  text(limit?: number): Promise<string>;
  /** Done with it, read or not: the connection goes with it. */
  close(): void;
  /** Done with a complete answer: its connection may carry the next request (node-transport.ts `release`). */
  release(): Promise<void>;
}

export type SendResult = { ok: true; response: OpenResponse } | { ok: false; failure: Failure };

export const globalTimers: Timers = {
  schedule(callback, ms) {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/** A fetch response read as the transport shape, so both transports share one reading path. */
async function openOverFetch(fetchFn: FetchFn, url: string, request: TransportRequest): Promise<TransportResponse> {
  const init: RequestInit = { method: request.method, headers: request.headers, signal: request.signal };
  if (request.body !== undefined) init.body = wholeBody(request.body);
  const res = await fetchFn(url, init);
  const reader = res.body?.getReader();
  const cancel = (): void => {
    if (reader !== undefined) reader.cancel().catch(() => undefined);
  };
  return {
    status: res.status,
    headers: res.headers,
    async next() {
      if (reader === undefined) return undefined;
      const r = await reader.read();
      return r.done ? undefined : r.value;
    },
    cancel,
    // A fetch pools its own connections; the body is let go as `cancel` does.
    release() {
      cancel();
      return Promise.resolve();
    },
  };
}

type Cause = "none" | "aborted" | "start_timeout" | "idle_timeout";

export async function send(wire: WireRequest | { url: string; headers: Record<string, string> }, opts: SendOptions): Promise<SendResult> {
  if (opts.signal?.aborted === true) return { ok: false, failure: { kind: "aborted" } };
  const controller = new AbortController();
  let cause: Cause = "none";
  const onAbort = (): void => {
    if (cause === "none") cause = "aborted";
    controller.abort();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  let cancelTimer: (() => void) | undefined;
  const disarm = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
  };
  const arm = (which: "start_timeout" | "idle_timeout"): void => {
    disarm();
    cancelTimer = opts.timers.schedule(() => {
      if (cause === "none") cause = which;
      controller.abort();
    }, opts.timeoutMs);
  };
  const failureFor = (err: unknown, midStream: boolean): Failure => {
    switch (cause) {
      case "aborted":
        return { kind: "aborted" };
      case "start_timeout":
        return { kind: "start_timeout", ms: opts.timeoutMs };
      case "idle_timeout":
        return { kind: "idle_timeout", ms: opts.timeoutMs };
      case "none": {
        const code = causeCodeOf(err);
        const f: Failure = { kind: "network", detail: detailOf(err), midStream };
        if (code !== undefined) f.code = code;
        return f;
      }
    }
  };
  const cleanup = (): void => {
    disarm();
    opts.signal?.removeEventListener("abort", onAbort);
  };

  arm("start_timeout");
  let res: TransportResponse;
  try {
    const request: TransportRequest = { method: opts.method ?? "POST", headers: wire.headers, body: "body" in wire ? wire.body : undefined, signal: controller.signal };
    res = opts.fetch === undefined ? await openOverNodeHttp(wire.url, request) : await openOverFetch(opts.fetch, wire.url, request);
  } catch (err) {
    cleanup();
    return { ok: false, failure: failureFor(err, false) };
  }
  disarm();
  let closed = false;

  const response: OpenResponse = {
    status: res.status,
    headers: res.headers,
    async read() {
      if (closed) return { kind: "end" };
      arm("idle_timeout");
      try {
        const bytes = await res.next();
        disarm();
        if (bytes === undefined) return { kind: "end" };
        return { kind: "chunk", bytes };
      } catch (err) {
        disarm();
        return { kind: "failure", failure: failureFor(err, true) };
      }
    },
    async text(limit = 65536) {
      const decoder = new TextDecoder();
      let out = "";
      for (;;) {
        const r = await response.read();
        if (r.kind !== "chunk") break;
        out += decoder.decode(r.bytes, { stream: true });
        if (out.length >= limit) break;
      }
      return out.slice(0, limit);
    },
    close() {
      if (closed) return;
      closed = true;
      cleanup();
      res.cancel();
    },
    release() {
      if (closed) return Promise.resolve();
      closed = true;
      cleanup();
      return res.release();
    },
  };
  return { ok: true, response };
}
