// Fuzzing the incremental SSE parser with generated streams, beyond the fixed text of
// test/sse.test.ts: any mix of fields, comments, blank lines, the three line endings, a BOM,
// multi-byte characters and a cut last line. Properties:
// - the parser agrees with an independent whole-body parser (sse-oracle.ts);
// - any split of the bytes gives exactly the same events and the same `danglingLine`;
// - arbitrary bytes (invalid UTF-8, NULs, lone CRs) never throw, and splits agree there too.
// Seeds are fixed; fast-check prints the seed and path of any counterexample.
//
// Planted bugs, to show each property can fail: PENGUIN_FUZZ_PLANT=sse-decode-per-chunk
// decodes each piece on its own (the classic multi-byte split bug); sse-fatal-decoder throws
// on invalid UTF-8 instead of replacing it.
import { describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { createSseParser, type SseEvent } from "../../../packages/models/src/index.js";
import { parseWhole } from "./sse-oracle.js";

vi.mock("../../../packages/models/src/sse.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../packages/models/src/sse.js")>();
  const plant = process.env.PENGUIN_FUZZ_PLANT;
  if (plant !== "sse-decode-per-chunk" && plant !== "sse-fatal-decoder") return real;
  return {
    ...real,
    createSseParser: () => {
      const inner = real.createSseParser();
      const strict = new TextDecoder("utf-8", { fatal: true });
      return {
        push: (bytes: Uint8Array) =>
          plant === "sse-fatal-decoder"
            ? (strict.decode(bytes, { stream: true }), inner.push(bytes))
            : inner.push(new TextEncoder().encode(new TextDecoder().decode(bytes))),
        end: () => inner.end(),
      };
    },
  };
});

const enc = new TextEncoder();

function parsePieces(bytes: Uint8Array, cuts: number[]): { events: SseEvent[]; danglingLine: boolean } {
  const p = createSseParser();
  const events: SseEvent[] = [];
  let start = 0;
  for (const c of [...new Set(cuts)].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b)) {
    events.push(...p.push(bytes.slice(start, c)));
    start = c;
  }
  events.push(...p.push(bytes.slice(start)));
  const end = p.end();
  return { events: [...events, ...end.events], danglingLine: end.danglingLine };
}

/** Text without line breaks, from every plane (so UTF-8 sequences of 1 to 4 bytes). */
const lineText = fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, " "));
const field = fc.constantFrom("data", "data", "data", "event", "id", "retry", "x-unknown", "");
const line = fc.oneof(
  fc.tuple(field, fc.constantFrom(":", ": ", ":  ", ""), lineText).map(([f, colon, v]) => (colon === "" ? f : `${f}${colon}${v}`)),
  lineText.map((v) => `:${v}`),
  fc.constant(""),
  fc.constant("data: {\"type\":\"x\",\"t\":\"ü😀\"}"),
);
const eol = fc.constantFrom("\n", "\r\n", "\r");
const stream = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(line, eol), { maxLength: 30 }), fc.oneof(lineText, fc.constant("")))
  .map(([bom, lines, tail]) => `${bom ? "\uFEFF" : ""}${lines.map(([l, e]) => l + e).join("")}${tail}`);
const cuts = (max: number) => fc.array(fc.integer({ min: 1, max: Math.max(1, max) }), { maxLength: 40 });

describe("SSE parser (fuzz)", () => {
  it("generated streams: equal to the whole-body oracle, for any split", () => {
    fc.assert(
      fc.property(
        stream.chain((text) => fc.tuple(fc.constant(text), cuts(enc.encode(text).length))),
        ([text, at]) => {
          const bytes = enc.encode(text);
          const whole = parsePieces(bytes, []);
          expect(whole).toEqual(parseWhole(bytes));
          expect(parsePieces(bytes, at)).toEqual(whole);
        },
      ),
      { numRuns: 400, seed: 5150 },
    );
  });

  it("arbitrary bytes never throw, and any split gives the same events", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }).chain((bytes) => fc.tuple(fc.constant(bytes), cuts(bytes.length))),
        ([bytes, at]) => {
          const whole = parsePieces(bytes, []);
          expect(parsePieces(bytes, at)).toEqual(whole);
          expect(whole).toEqual(parseWhole(bytes));
        },
      ),
      { numRuns: 400, seed: 6160 },
    );
  });
});
