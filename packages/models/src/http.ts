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
 */
import type { Timers } from "./types.js";
import { causeCodeOf, detailOf, type Failure, type HeaderReader } from "./errors.js";

/** A request ready to send: the protocol adapters build these. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type FetchFn = typeof fetch;

export interface SendOptions {
  fetch: FetchFn;
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
  close(): void;
}

export type SendResult = { ok: true; response: OpenResponse } | { ok: false; failure: Failure };

export const globalTimers: Timers = {
  schedule(callback, ms) {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

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
  let res: Response;
  try {
    const init: RequestInit = { method: opts.method ?? "POST", headers: wire.headers, signal: controller.signal };
    if ("body" in wire) init.body = wire.body;
    res = await opts.fetch(wire.url, init);
  } catch (err) {
    cleanup();
    return { ok: false, failure: failureFor(err, false) };
  }
  disarm();
  const reader = res.body?.getReader();
  let closed = false;

  const response: OpenResponse = {
    status: res.status,
    headers: res.headers,
    async read() {
      if (closed || reader === undefined) return { kind: "end" };
      arm("idle_timeout");
      try {
        const r = await reader.read();
        disarm();
        if (r.done) return { kind: "end" };
        return { kind: "chunk", bytes: r.value };
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
      if (reader !== undefined) reader.cancel().catch(() => undefined);
    },
  };
  return { ok: true, response };
}
