// The SSE transport (api/sse.ts): frame parsing across arbitrary chunk boundaries, and the
// reconnect rules: Last-Event-ID on reconnect, back-off, fatal statuses, liveness timeout.
import { describe, expect, it } from "vitest";
import { defaultBackoff, openSse, SseParser, type SseFrame, type SseTimers } from "../src/api/sse";

describe("SseParser", () => {
  const wire = 'id: e-1\ndata: {"a":1}\n\n: ping\n\nevent: server_event\nid: e-2\ndata: {"type":"x"}\n\r\ndata: line1\ndata: line2\n\nid: e-3\n\n';

  it("parses events, comments, multi-line data and ids", () => {
    const p = new SseParser();
    const frames = p.push(wire);
    expect(frames).toEqual([
      { event: "message", data: '{"a":1}', id: "e-1" },
      { event: "server_event", data: '{"type":"x"}', id: "e-2" },
      { event: "message", data: "line1\nline2", id: undefined },
    ]);
    expect(p.lastEventId).toBe("e-3");
  });

  it("gives the same frames however the bytes are split", () => {
    const whole = new SseParser().push(wire);
    for (let size = 1; size <= 7; size++) {
      const p = new SseParser();
      const got: SseFrame[] = [];
      for (let i = 0; i < wire.length; i += size) got.push(...p.push(wire.slice(i, i + size)));
      expect(got).toEqual(whole);
    }
  });

  it("handles CRLF split between chunks", () => {
    const p = new SseParser();
    expect([...p.push("data: x\r"), ...p.push("\n\r"), ...p.push("\n")]).toEqual([{ event: "message", data: "x", id: undefined }]);
  });
});

/** A fetch whose responses the test writes to, one per call. */
function fakeServer() {
  const calls: { headers: Record<string, string>; push(text: string): void; end(): void; fail(): void; signal: AbortSignal }[] = [];
  const statuses: number[] = [];
  const fetchImpl = (async (_url: RequestInfo | URL, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const status = statuses.shift() ?? 200;
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
    const enc = new TextEncoder();
    const signal = init?.signal ?? new AbortController().signal;
    signal.addEventListener("abort", () => {
      try {
        ctrl.error(new DOMException("aborted", "AbortError"));
      } catch {
        // closed
      }
    });
    calls.push({ headers, signal, push: (t) => ctrl.enqueue(enc.encode(t)), end: () => ctrl.close(), fail: () => ctrl.error(new TypeError("network")) });
    return new Response(status === 200 ? body : null, { status });
  }) as typeof fetch;
  return { calls, statuses, fetchImpl };
}

function fakeTimers() {
  let now = 0;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: SseTimers = {
    setTimeout(fn, ms) {
      seq += 1;
      const id = seq;
      pending.set(id, { at: now + ms, fn });
      return () => void pending.delete(id);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...pending]) {
      if (t.at <= now) {
        pending.delete(id);
        t.fn();
      }
    }
  };
  return { timers, advance, pending };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
async function settle() {
  for (let i = 0; i < 10; i++) await tick();
}

describe("openSse", () => {
  it("delivers frames, and reconnects with Last-Event-ID after the stream ends", async () => {
    const srv = fakeServer();
    const t = fakeTimers();
    const frames: SseFrame[] = [];
    const opens: boolean[] = [];
    const conn = openSse({ url: "/s", fetch: srv.fetchImpl, timers: t.timers, onFrame: (f) => frames.push(f), onOpen: ({ reconnect }) => opens.push(reconnect) });
    await settle();
    expect(srv.calls[0]?.headers["last-event-id"]).toBeUndefined();
    srv.calls[0]?.push("id: ep-1\ndata: 1\n\nid: ep-2\ndata: 2\n\n");
    await settle();
    expect(frames.map((f) => f.data)).toEqual(["1", "2"]);
    srv.calls[0]?.end();
    await settle();
    expect(conn.status).toBe("reconnecting");
    t.advance(defaultBackoff(1));
    await settle();
    expect(srv.calls).toHaveLength(2);
    expect(srv.calls[1]?.headers["last-event-id"]).toBe("ep-2");
    expect(opens).toEqual([false, true]);
    conn.close();
  });

  it("backs off on network errors and 5xx, and resets after a successful open", async () => {
    const srv = fakeServer();
    srv.statuses.push(503, 503);
    const t = fakeTimers();
    const conn = openSse({ url: "/s", fetch: srv.fetchImpl, timers: t.timers, onFrame: () => undefined });
    await settle();
    expect(srv.calls).toHaveLength(1);
    t.advance(999);
    await settle();
    expect(srv.calls).toHaveLength(1);
    t.advance(1);
    await settle();
    expect(srv.calls).toHaveLength(2);
    t.advance(1999);
    await settle();
    expect(srv.calls).toHaveLength(2);
    t.advance(1);
    await settle();
    expect(srv.calls).toHaveLength(3);
    expect(conn.status).toBe("open");
    srv.calls[2]?.fail();
    await settle();
    t.advance(1000);
    await settle();
    expect(srv.calls).toHaveLength(4);
    conn.close();
  });

  it("stops for good on 401/404", async () => {
    const srv = fakeServer();
    srv.statuses.push(404);
    const t = fakeTimers();
    const closed: number[] = [];
    const conn = openSse({ url: "/s", fetch: srv.fetchImpl, timers: t.timers, onFrame: () => undefined, onClosed: ({ status }) => closed.push(status) });
    await settle();
    t.advance(60_000);
    await settle();
    expect(srv.calls).toHaveLength(1);
    expect(closed).toEqual([404]);
    expect(conn.status).toBe("closed");
  });

  it("replaces a silent connection after the idle timeout, resuming from the last id", async () => {
    const srv = fakeServer();
    const t = fakeTimers();
    const conn = openSse({ url: "/s", fetch: srv.fetchImpl, timers: t.timers, idleTimeoutMs: 45_000, onFrame: () => undefined });
    await settle();
    srv.calls[0]?.push("id: ep-7\ndata: x\n\n");
    await settle();
    t.advance(44_000);
    await settle();
    expect(srv.calls).toHaveLength(1);
    t.advance(1_000);
    await settle();
    t.advance(1_000);
    await settle();
    expect(srv.calls).toHaveLength(2);
    expect(srv.calls[1]?.headers["last-event-id"]).toBe("ep-7");
    conn.close();
  });

  it("reconnects at once on reconnectNow (the browser came back online)", async () => {
    const srv = fakeServer();
    const t = fakeTimers();
    const conn = openSse({ url: "/s", fetch: srv.fetchImpl, timers: t.timers, onFrame: () => undefined });
    await settle();
    srv.calls[0]?.push("id: ep-3\ndata: x\n\n");
    await settle();
    srv.calls[0]?.fail();
    await settle();
    expect(conn.status).toBe("reconnecting");
    conn.reconnectNow();
    await settle();
    expect(srv.calls).toHaveLength(2);
    expect(srv.calls[1]?.headers["last-event-id"]).toBe("ep-3");
    conn.close();
    expect(t.pending.size).toBe(0);
  });
});

describe("decoding the user feed's frames", () => {
  it("turns a projection_snapshot (a reconnect the server could not replay) into a list reload, and ignores a read-model row it cannot read", async () => {
    const { decodeFrame } = await import("../src/api/stream-events");
    const id = "12.ep2.3";
    expect(decodeFrame({ event: "server_event", id, data: JSON.stringify({ type: "projection_snapshot", position: 12, sessions: [], usage: [] }) })).toEqual({ kind: "server", id, event: { type: "resync_required" } });
    expect(decodeFrame({ event: "server_event", id, data: JSON.stringify({ type: "session_row", position: 12, session: { sessionId: "s" } }) })).toEqual({ kind: "server", id, event: { type: "other", name: "session_row" } });
    // A whole row is applied now (issue 28: live read models; test/live-read-models.test.ts).
    const whole = { sessionId: "s", projectId: "p", agentId: "a", createdAt: 1, lastEventAt: 2, status: "done" };
    expect(decodeFrame({ event: "server_event", id, data: JSON.stringify({ type: "session_row", position: 12, session: whole }) })).toMatchObject({ kind: "server", id, event: { type: "session_row", position: 12, row: { sessionId: "s" } } });
  });
});
