// Trace timestamps never decrease within a file: the writer stamps each envelope when it is
// appended. Given a random sequence of envelopes (random producer times, random kinds, some
// filtered out as partials) appended through a real TraceWriter to a temp file, with a writer
// clock that jumps back and forth at random, then the file's timestamps never go down, every
// stamp is the writer clock's (or the floor it holds), and the live envelope carries the same
// time as its line. A resumed writer continues from the file's last stamp even when its clock
// is behind. The clock is injected: nothing here depends on real time passing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { eventMessage, modelMessage, requestBegin, requestEnd, userText, type OmniMessage } from "@penguin/omnimessage";
import { TraceWriter } from "@penguin/trace";
import { parseTraceText } from "../../src/trace/reader.js";

const dir = mkdtempSync(join(tmpdir(), "penguin-stamps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = { session_id: "session-2026-01-01-00-00-00-00000000", provider: "x", model_id: "y", model_context_window: 1000, system_prompt: "", agent_state: "/s", workspace: "/w" } as const;
const BASE_MS = Date.UTC(2026, 0, 1);

/** An envelope of a random kind, built as if its producer made it at `producedAt`. */
const envelopeArb = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: -10_000_000, max: 10_000_000 })).map(([kind, offset]): OmniMessage => {
  const at = new Date(BASE_MS + offset);
  switch (kind) {
    case 0:
      return requestBegin({ at });
    case 1:
      return userText("hello", { at });
    case 2:
      return modelMessage({ type: "text", role: "assistant", text: "answer" }, { at });
    case 3:
      return modelMessage({ type: "partial_text", event_type: "delta", text: "ans" }, { at });
    case 4:
      return requestEnd("completed", undefined, { at });
    default:
      return eventMessage({ type: "abort", reason: "stop" }, { at });
  }
});

/** The envelopes of a file; none when nothing traceable was appended (the file is created lazily). */
function linesOf(file: string): OmniMessage[] {
  return existsSync(file) ? parseTraceText(readFileSync(file, "utf8")).messages : [];
}

function stampsOf(file: string): number[] {
  return linesOf(file).map((m) => Date.parse(m.timestamp));
}

function isNonDecreasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v >= values[i - 1]!);
}

describe("TraceWriter stamps", () => {
  it("appended timestamps never decrease, whatever the producers' times and the clock do", () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(envelopeArb, { minLength: 1, maxLength: 40 }), fc.array(fc.integer({ min: -5_000_000, max: 5_000_000 }), { minLength: 1, maxLength: 40 }), (envelopes, clockSteps) => {
        const file = join(dir, `run-${run++}.jsonl`);
        let tick = 0;
        const clockReadings: number[] = [];
        const now = (): number => {
          const reading = BASE_MS + clockSteps[tick++ % clockSteps.length]!;
          clockReadings.push(reading);
          return reading;
        };
        const writer = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: false, fsync: false, now });
        const live: OmniMessage[] = [];
        for (const m of envelopes) {
          writer.append(m);
          live.push(m);
        }
        writer.close();
        const stamps = stampsOf(file);
        expect(isNonDecreasing(stamps)).toBe(true);
        // Each stamp is the running maximum of the clock's readings.
        let floor = Number.NEGATIVE_INFINITY;
        expect(stamps).toEqual(clockReadings.map((r) => (floor = Math.max(floor, r))));
        // The host sees the time that was written: the live envelopes that reached the file carry its stamps.
        const written = linesOf(file).filter((m) => m.type !== "session_meta");
        const liveWritten = live.filter((m) => !(m.type === "model_msg" && m.payload.type.startsWith("partial_")));
        expect(liveWritten.map((m) => m.timestamp)).toEqual(written.map((m) => m.timestamp));
      }),
      { numRuns: 200 },
    );
  });

  it("a resumed writer whose clock is behind continues from the file's last stamp", () => {
    const file = join(dir, "resume.jsonl");
    const first = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: false, fsync: false, now: () => BASE_MS + 60_000 });
    first.append(requestBegin());
    first.append(requestEnd("completed"));
    first.close();
    const resumed = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: true, fsync: false, now: () => BASE_MS });
    resumed.append(userText("after resume"));
    resumed.close();
    const stamps = stampsOf(file);
    expect(stamps).toHaveLength(4);
    expect(stamps.at(-1)).toBe(BASE_MS + 60_000);
    expect(isNonDecreasing(stamps)).toBe(true);
  });
});
