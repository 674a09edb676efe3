// The incremental SSE parser on its own: line endings, multi-line data, event names, comments,
// the end of the body, and any split of the bytes (fast-check, fixed seed).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createSseParser, type SseEvent } from "../src/index.js";

const enc = new TextEncoder();

function parseAll(pieces: Uint8Array[]): { events: SseEvent[]; danglingLine: boolean } {
  const p = createSseParser();
  const events = pieces.flatMap((b) => p.push(b));
  const end = p.end();
  return { events: [...events, ...end.events], danglingLine: end.danglingLine };
}

const one = (text: string) => parseAll([enc.encode(text)]);

describe("SSE parser", () => {
  it("dispatches on a blank line, with or without an event name", () => {
    expect(one("event: message_start\ndata: {\"a\":1}\n\ndata: x\n\n").events).toEqual([
      { event: "message_start", data: '{"a":1}', id: undefined },
      { event: undefined, data: "x", id: undefined },
    ]);
  });

  it("accepts \\r\\n and lone \\r line endings", () => {
    const want = [{ event: "e", data: "1", id: undefined }, { event: undefined, data: "2", id: undefined }];
    expect(one("event: e\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n").events).toEqual(want);
    expect(one("event: e\rdata: 1\r\rdata: 2\r\r").events).toEqual(want);
  });

  it("joins multi-line data with \\n, drops one leading space only, and skips comments and unknown fields", () => {
    expect(one(": keep-alive\ndata:a\ndata:  b\nretry: 10\nfoo: bar\ndata\n\n").events).toEqual([{ event: undefined, data: "a\n b\n", id: undefined }]);
  });

  it("skips a leading byte-order mark and keeps the last id", () => {
    expect(one("\uFEFFid: 7\ndata: x\n\n").events).toEqual([{ event: undefined, data: "x", id: "7" }]);
  });

  it("dispatches a final event whose line ended but has no blank line; drops a cut line", () => {
    expect(one("data: [DONE]\n")).toEqual({ events: [{ event: undefined, data: "[DONE]", id: undefined }], danglingLine: false });
    expect(one("data: {\"cut")).toEqual({ events: [], danglingLine: true });
  });

  it("does not emit events without data", () => {
    expect(one("event: ping\n\n\n\n").events).toEqual([]);
  });

  it("gives the same events for any split of the bytes, inside \\r\\n pairs and multi-byte characters", () => {
    const text = "event: a\r\ndata: {\"t\":\"ÿ€😀 ü\"}\r\n\r\n: c\ndata: line1\ndata: línea 2 ✓\n\nevent: b\rdata: 终\r\r";
    const bytes = enc.encode(text);
    const whole = parseAll([bytes]);
    expect(whole.events).toHaveLength(3);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 30 }), (cuts) => {
        const sorted = [...cuts].sort((a, b) => a - b);
        const pieces: Uint8Array[] = [];
        let start = 0;
        for (const c of [...sorted, bytes.length]) {
          pieces.push(bytes.slice(start, c));
          start = c;
        }
        expect(parseAll(pieces)).toEqual(whole);
      }),
      { numRuns: 500, seed: 424242 },
    );
    const byteByByte = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(parseAll(byteByByte)).toEqual(whole);
  });
});
