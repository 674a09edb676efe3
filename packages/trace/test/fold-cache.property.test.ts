// The one fold cache (`SessionFolds`, state-at.ts) against a fresh fold, as a property: given
// several sessions written by the TraceWriter into one temp dir, growing and rotating while
// they are asked about, when any of them is asked its state at a random event count (from a
// cache small enough that sessions, recordings and remembered values keep evicting each
// other), then the answer equals the time-travel fold of that prefix read afresh from the
// files, and the cache never holds more entries than its bound.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, compactionBegin, compactionEnd, requestBegin, requestEnd, sessionTitle, tokenUsage, userText, type OmniMessage } from "@penguin/omnimessage";
import { comparableFold, foldTimeTravel, readTraceFile, SessionFolds, traceFilesIn, TraceWriter } from "../src/index.js";

const SIDS = ["session-2026-12-01-09-00-00-0000000a", "session-2026-12-01-09-00-00-0000000b", "session-2026-12-01-09-00-00-0000000c"];
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-fold-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const counts = (n: number) => ({ cache_read: 0, cache_write: n, output: 1, total: n + 1 });

function openWriter(sid: string): TraceWriter {
  const fileFor = (index: number) => join(dir, "2026-12-01", `${sid}_${String(index).padStart(3, "0")}.jsonl`);
  const meta = { session_id: sid, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };
  const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
  writer.setTools([]);
  return writer;
}

const turn = (i: number): OmniMessage[] => [requestBegin(), userText(`q${i}`), assistantText(`a${i}`), requestEnd("completed"), tokenUsage(counts(i), counts(i))];
const compaction = (i: number): OmniMessage[] => [
  compactionBegin({ reason: "manual", mode: "summarize", context: 10, turns: i }),
  requestBegin(),
  assistantText(`[summary]up to ${i}[/summary]`),
  requestEnd("completed"),
  compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }),
];

/** Every event of the session as a fresh read of its files gives them, oldest first. */
function eventsOnDisk(sid: string): OmniMessage[] {
  return traceFilesIn(dir, sid).flatMap((f) => readTraceFile(f.file).messages);
}

type Op = { kind: "turns"; session: number; n: number } | { kind: "rotate"; session: number } | { kind: "ask"; session: number; at: number } | { kind: "recording"; session: number; at: number } | { kind: "remember"; key: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("turns" as const), session: fc.nat(2), n: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("rotate" as const), session: fc.nat(2) }),
  fc.record({ kind: fc.constant("ask" as const), session: fc.nat(2), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("recording" as const), session: fc.nat(2), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("remember" as const), key: fc.nat(3) }),
);

describe("the fold cache", () => {
  it("answers every session at random positions exactly as a fresh fold does, within its entry bound", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 3 }), (ops, snapshotEvery, maxEntries) => {
        rmSync(dir, { recursive: true, force: true });
        const folds = new SessionFolds({ snapshotEvery, maxEntries });
        const writers = SIDS.map(openWriter);
        const turns = [0, 0, 0];
        // A recording held in memory: the same object while its session has not grown.
        const recordings = new Map<number, { events: OmniMessage[] }>();
        try {
          for (const o of ops) {
            if (o.kind === "turns") {
              for (let i = 0; i < o.n; i++) for (const m of turn(turns[o.session]!++)) writers[o.session]!.append(m);
              recordings.delete(o.session);
            } else if (o.kind === "rotate") {
              for (const m of compaction(turns[o.session]!)) writers[o.session]!.append(m);
              writers[o.session]!.rotate();
              writers[o.session]!.append(sessionTitle(`rotated at ${turns[o.session]}`));
              recordings.delete(o.session);
            } else if (o.kind === "ask") {
              const sid = SIDS[o.session]!;
              const events = eventsOnDisk(sid);
              const n = Math.round(o.at * events.length);
              const answer = folds.stateAt(dir, sid, n);
              expect(answer.events).toBe(n);
              expect(answer.totalEvents).toBe(events.length);
              expect(comparableFold(answer.fold)).toEqual(comparableFold(foldTimeTravel(events.slice(0, n))));
            } else if (o.kind === "recording") {
              let recording = recordings.get(o.session);
              if (recording === undefined) {
                recording = { events: eventsOnDisk(SIDS[o.session]!) };
                recordings.set(o.session, recording);
              }
              const n = Math.round(o.at * recording.events.length);
              const fold = folds.foldRecordingAt(recording, (i) => recording.events[i]!, n);
              expect(comparableFold(fold)).toEqual(comparableFold(foldTimeTravel(recording.events.slice(0, n))));
            } else {
              // A remembered value shares the bound: the same stamp answers the kept value.
              const kept = folds.remember(`value ${o.key}`, "stamp", () => ({ key: o.key }));
              expect(folds.remember(`value ${o.key}`, "stamp", () => ({ key: -1 }))).toBe(kept);
            }
            expect(folds.size).toBeLessThanOrEqual(maxEntries);
          }
        } finally {
          for (const w of writers) w.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("evicts the least recently used entry first", () => {
    const folds = new SessionFolds({ maxEntries: 2 });
    let builds = 0;
    const value = (key: string) => folds.remember(key, "s", () => ({ key, build: ++builds }));
    value("a");
    value("b");
    value("a"); // a is now the most recently used
    value("c"); // evicts b
    expect(folds.size).toBe(2);
    expect(value("a").build).toBe(1);
    expect(value("b").build).toBe(4);
    // A changed stamp is a new value.
    expect(folds.remember("b", "t", () => ({ key: "b", build: ++builds })).build).toBe(5);
  });
});
