// The replay ring and the SSE framing, as units: exactly-once replay in order, resync when
// the gap left the ring or the epoch differs, ring limits by count and bytes, frame rules,
// pings on an injected ticker, and slow readers cut off instead of buffered without bound.
import { describe, expect, it } from "vitest";
import { directSseBody, formatSse, OPENING_FRAME, openSseStream, PING_FRAME, RETRY_MS, type SseSink } from "../src/http/sse.js";
import { ManualTicker } from "../src/runtime/clock.js";
import { EventIds, SseChannel } from "../src/runtime/sse-channel.js";
import { SseReader } from "./helpers/sse.js";

function sink(): SseSink & { frames: string[] } {
  const frames: string[] = [];
  let closed = false;
  return {
    frames,
    send: (f) => void frames.push(f),
    close: () => void (closed = true),
    get closed() {
      return closed;
    },
  };
}

const ids = (frames: string[]) => frames.map((f) => /^id: (.*)$/m.exec(f)?.[1]).filter((x): x is string => x !== undefined);
const datas = (frames: string[]) => frames.map((f) => /^data: (.*)$/m.exec(f)?.[1]);

describe("SseChannel", () => {
  it("replays exactly the events after Last-Event-ID, once, in order, then goes live", () => {
    const eventIds = new EventIds("ep1");
    const ch = new SseChannel(eventIds, { maxEvents: 100, maxBytes: 1e6 });
    const published = ["a", "b", "c", "d", "e"].map((d) => ch.publish(JSON.stringify(d)));
    const s = sink();
    ch.subscribe(s, published[1]);
    expect(datas(s.frames)).toEqual(['"c"', '"d"', '"e"']);
    ch.publish('"f"');
    expect(datas(s.frames)).toEqual(['"c"', '"d"', '"e"', '"f"']);
    expect(ids(s.frames)).toEqual([...published.slice(2), "ep1-6"]);
    const upToDate = sink();
    ch.subscribe(upToDate, ch.lastId);
    expect(upToDate.frames).toEqual([]);
  });

  it("asks for a resync when the gap left the ring, the epoch differs or the id is nonsense", () => {
    const ch = new SseChannel(new EventIds("ep2"), { maxEvents: 3, maxBytes: 1e6 });
    const first = ch.publish("1");
    for (const d of ["2", "3", "4", "5"]) ch.publish(d);
    expect(ch.size.events).toBe(3);
    for (const stale of [first, "other-3", "garbage", "ep2-999"]) {
      const s = sink();
      ch.subscribe(s, stale);
      expect(s.frames).toHaveLength(1);
      expect(s.frames[0]).toContain("event: server_event");
      expect(s.frames[0]).toContain('"resync_required"');
      expect(ids(s.frames)).toEqual([ch.lastId]);
    }
    const edge = sink();
    ch.subscribe(edge, "ep2-2");
    expect(datas(edge.frames)).toEqual(["3", "4", "5"]);
  });

  it("bounds the ring by bytes as well as count", () => {
    const ch = new SseChannel(new EventIds("ep3"), { maxEvents: 10_000, maxBytes: 1000 });
    for (let i = 0; i < 50; i++) ch.publish("x".repeat(100));
    expect(ch.size.bytes).toBeLessThanOrEqual(1000);
    expect(ch.size.events).toBeLessThan(10);
  });

  it("never reuses ids across channels of one process", () => {
    const eventIds = new EventIds("ep4");
    const a = new SseChannel(eventIds, { maxEvents: 10, maxBytes: 1e6 });
    const b = new SseChannel(eventIds, { maxEvents: 10, maxBytes: 1e6 });
    const seen = [a.publish("1"), b.publish("1"), a.publish("2")];
    expect(new Set(seen).size).toBe(3);
    // A channel re-created after eviction cannot vouch for events before it existed.
    const c = new SseChannel(eventIds, { maxEvents: 10, maxBytes: 1e6 });
    const s = sink();
    c.subscribe(s, seen[0]);
    expect(s.frames[0]).toContain("resync_required");
  });

  it("frames multi-line data and refuses CR/LF in event names and ids", () => {
    expect(formatSse({ event: "x", id: "1", data: "a\nb" })).toBe("event: x\nid: 1\ndata: a\ndata: b\n\n");
    expect(formatSse({ id: "001:000002", data: '{"type":"model_msg"}' })).toBe('id: 001:000002\ndata: {"type":"model_msg"}\n\n');
    expect(formatSse({ data: "" })).toBe("data: \n\n");
    expect(() => formatSse({ event: "x\ny", data: "" })).toThrow(/single line/);
    expect(() => formatSse({ id: "1\r", data: "" })).toThrow(/single line/);
  });

  it("splits data at CR, LF and CRLF alike, so a payload cannot end an event early or inject a field", () => {
    const frame = formatSse({ event: "x", data: "one\r\nid: forged\rtwo\n\nevent: forged" });
    expect(frame).toBe("event: x\ndata: one\ndata: id: forged\ndata: two\ndata: \ndata: event: forged\n\n");
    expect(frame.split("\n\n")).toHaveLength(2);
    expect(frame.match(/^id:/m)).toBeNull();
  });
});

describe("openSseStream", () => {
  it("pings on the injected ticker and stops pinging once the client goes away", async () => {
    const ticker = new ManualTicker();
    let released = 0;
    const res = openSseStream(() => () => void (released += 1), { ticker, pingMs: 20_000, maxBufferedBytes: 1e6 });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = new SseReader(res.body!);
    await reader.untilComment("connected");
    expect(reader.retryMs).toBe(RETRY_MS);
    expect(reader.events).toEqual([]);
    ticker.advance(19_999);
    ticker.advance(1);
    await reader.untilComment("ping");
    expect(ticker.active).toBe(1);
    await reader.close();
    expect(released).toBe(1);
    expect(ticker.active).toBe(0);
  });

  it("hands an attached writer the frames as strings, the queued ones first, and ends it when the stream closes", () => {
    const ticker = new ManualTicker();
    const ch = new SseChannel(new EventIds("ep6"), { maxEvents: 10_000, maxBytes: 1e9 });
    let released = 0;
    const res = openSseStream(
      (s) => {
        const unsubscribe = ch.subscribe(s);
        return () => {
          released += 1;
          unsubscribe();
        };
      },
      { ticker, pingMs: 20_000, maxBufferedBytes: 1e6 },
    );
    ch.publish("before attach");
    const direct = directSseBody(res);
    expect(direct).toBeDefined();
    expect(directSseBody(new Response("plain"))).toBeUndefined();
    const written: string[] = [];
    let ended = 0;
    direct!.attach({ write: (frame) => (written.push(frame), 0), end: () => void (ended += 1) });
    ch.publish("after attach");
    ticker.advance(20_000);
    expect(written).toEqual([OPENING_FRAME, formatSse({ id: "ep6-1", data: "before attach" }), formatSse({ id: "ep6-2", data: "after attach" }), PING_FRAME]);
    expect(() => direct!.attach({ write: () => 0, end: () => undefined })).toThrow(/one consumer/);
    direct!.cancel();
    expect([ended, released, ch.subscriberCount, ticker.active]).toEqual([1, 1, 0, 0]);
    ch.publish("gone");
    expect(written).toHaveLength(4);
  });

  it("closes an attached stream whose socket buffers more than the limit", () => {
    const ch = new SseChannel(new EventIds("ep7"), { maxEvents: 10_000, maxBytes: 1e9 });
    const res = openSseStream((s) => ch.subscribe(s), { ticker: new ManualTicker(), pingMs: 20_000, maxBufferedBytes: 64 * 1024 });
    let buffered = 0;
    let ended = false;
    directSseBody(res)!.attach({ write: (frame) => (buffered += frame.length), end: () => void (ended = true) });
    for (let i = 0; i < 100 && !ended; i++) ch.publish("z".repeat(1024));
    expect(ended).toBe(true);
    expect(buffered).toBeGreaterThan(64 * 1024);
    expect(ch.subscriberCount).toBe(0);
  });

  it("closes a subscriber whose client does not read", async () => {
    const ticker = new ManualTicker();
    const ch = new SseChannel(new EventIds("ep5"), { maxEvents: 10_000, maxBytes: 1e9 });
    let subscribed: SseSink | undefined;
    const res = openSseStream(
      (s) => {
        subscribed = s;
        return ch.subscribe(s);
      },
      { ticker, pingMs: 20_000, maxBufferedBytes: 64 * 1024 },
    );
    expect(res.body).not.toBeNull();
    for (let i = 0; i < 200; i++) ch.publish("y".repeat(1024));
    expect(subscribed?.closed).toBe(true);
    expect(ch.subscriberCount).toBe(0);
  });
});
