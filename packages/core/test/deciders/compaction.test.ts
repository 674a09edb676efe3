// The compaction decider as given/when/then: the triggers at their thresholds, the start of a
// summarize and of a discard compaction, a summary reply judged from the span the fold holds,
// giving up; and properties: `check` starts a compaction exactly when the context passes its
// threshold, and a started compaction folded with its completed end closes the context.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantText, compactionBegin, requestBegin, requestEnd, tokenUsage, userText, zeroTokens, type OmniMessage } from "@penguin/omnimessage";
import { compactionThreshold, decideCompaction, DEFAULT_COMPACTION, MAX_CONTENT_ATTEMPTS, type CompactionSettings } from "../../src/deciders/compaction.js";
import { AT, appended, given, lines } from "./given.js";

const settings = (over: Partial<CompactionSettings> = {}): CompactionSettings => ({ ...DEFAULT_COMPACTION, maxContextLength: 10_000, ...over });
const usage = (total: number) => tokenUsage({ ...zeroTokens(), total }, { ...zeroTokens(), input: total, total });
const turn = (): OmniMessage[] => [requestBegin(), userText("hi"), assistantText("hello"), requestEnd("completed")];
const inSpan = (reply: string): OmniMessage[] => [
  ...turn(),
  usage(9_000),
  compactionBegin({ reason: "context", mode: "summarize", context: 9_000, turns: 1 }),
  requestBegin(),
  assistantText(reply),
  requestEnd("completed"),
];

describe("compaction decider", () => {
  it("given a last request under the threshold, when checked, then nothing; at the threshold, compaction_begin (context)", () => {
    expect(decideCompaction(given(...turn(), usage(7_951)), { type: "check", settings: settings(), window: 10_000, at: AT })).toEqual([]);
    expect(lines(decideCompaction(given(...turn(), usage(7_952)), { type: "check", settings: settings(), window: 10_000, at: AT }))).toEqual([
      { event_msg: { type: "compaction_begin", reason: "context", mode: "summarize", context: 7_952, turns: 1 } },
    ]);
  });

  it("given an unknown window, when checked, then the threshold is that of a 128000-token window", () => {
    const s = settings({ maxContextLength: 1_000_000 });
    expect(decideCompaction(given(usage(125_951)), { type: "check", settings: s, window: "unknown", at: AT })).toEqual([]);
    expect(decideCompaction(given(usage(125_952)), { type: "check", settings: s, window: "unknown", at: AT })).toHaveLength(1);
  });

  it("given two committed turns and max_session_turns 2, when checked, then compaction_begin (turns)", () => {
    const events = decideCompaction(given(...turn(), ...turn()), { type: "check", settings: settings({ maxSessionTurns: 2 }), window: 10_000, at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "compaction_begin", reason: "turns", mode: "summarize", context: 0, turns: 2 } }]);
  });

  it("given a context, when a manual discard is asked, then begin and a completed end, which close the context", () => {
    const state = given(...turn());
    const events = decideCompaction(state, { type: "start", reason: "manual", mode: "discard", at: AT });
    expect(lines(events)).toEqual([
      { event_msg: { type: "compaction_begin", reason: "manual", mode: "discard", context: 0, turns: 1 } },
      { event_msg: { type: "compaction_end", reason: "manual", mode: "discard", status: "completed" } },
    ]);
    const after = appended(state, events);
    expect([after.contextClosed, after.history.size, after.compactionSpan]).toEqual([true, 0, undefined]);
  });

  it("given a span whose reply holds a summary, when the reply is judged, then compaction_end completed (attempt named after the first)", () => {
    expect(lines(decideCompaction(given(...inSpan("[summary]we did X[/summary]")), { type: "summary_reply", calledTool: false, attempt: 2, unusableBefore: 1, canRetry: true, at: AT }))).toEqual([
      { event_msg: { type: "compaction_end", reason: "context", mode: "summarize", status: "completed", attempt: 2 } },
    ]);
  });

  it("given an empty reply, when judged, then nothing while attempts remain, and failed once they are spent or retries are", () => {
    const state = given(...inSpan("   "));
    const judge = (unusableBefore: number, canRetry: boolean) => decideCompaction(state, { type: "summary_reply", calledTool: false, attempt: 3, unusableBefore, canRetry, at: AT });
    expect(judge(0, true)).toEqual([]);
    const failed = { event_msg: { type: "compaction_end", reason: "context", mode: "summarize", status: "failed", error_message: "the summary reply was empty", attempt: 3 } };
    expect(lines(judge(MAX_CONTENT_ATTEMPTS - 1, true))).toEqual([failed]);
    expect(lines(judge(0, false))).toEqual([failed]);
  });

  it("given a reply that called a tool, when judged, then it is no summary whatever its text", () => {
    const events = decideCompaction(given(...inSpan("[summary]fine[/summary]")), { type: "summary_reply", calledTool: true, attempt: 1, unusableBefore: 2, canRetry: true, at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "compaction_end", reason: "context", mode: "summarize", status: "failed", error_message: "the summary reply called a tool", attempt: 1 } }]);
  });

  it("given a span, when the compaction gives up, then its end with that status; outside a span, nothing", () => {
    expect(lines(decideCompaction(given(...inSpan("")), { type: "give_up", status: "aborted", error: "compaction aborted by user", attempt: 1, at: AT }))).toEqual([
      { event_msg: { type: "compaction_end", reason: "context", mode: "summarize", status: "aborted", error_message: "compaction aborted by user", attempt: 1 } },
    ]);
    expect(decideCompaction(given(...turn()), { type: "give_up", status: "failed", error: "x", attempt: 1, at: AT })).toEqual([]);
    expect(decideCompaction(given(...turn()), { type: "summary_reply", calledTool: false, attempt: 1, unusableBefore: 0, canRetry: true, at: AT })).toEqual([]);
  });

  it("property: check starts a compaction exactly at the threshold, and a completed end then closes the context", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 300_000 }),
        fc.oneof(fc.integer({ min: 4_096, max: 400_000 }), fc.constant("unknown" as const)),
        fc.integer({ min: 0, max: 400_000 }),
        fc.constantFrom("summarize" as const, "discard" as const),
        (maxContextLength, window, total, mode) => {
          const s = settings({ maxContextLength, mode });
          const state = given(...turn(), usage(total));
          const events = decideCompaction(state, { type: "check", settings: s, window, at: AT });
          expect(events.length > 0).toBe(total >= compactionThreshold(s, window));
          if (events.length === 0) return;
          let after = appended(state, events);
          if (mode === "summarize") {
            after = appended(after, [requestBegin(), assistantText("[summary]s[/summary]"), requestEnd("completed")]);
            after = appended(after, decideCompaction(after, { type: "summary_reply", calledTool: false, attempt: 1, unusableBefore: 0, canRetry: true, at: AT }));
          }
          expect([after.contextClosed, after.compactionSpan, after.turns, after.lastRequest]).toEqual([true, undefined, 0, undefined]);
          expect(after.compaction).toEqual({ status: "idle", last: { reason: "context", mode, status: "completed" } });
        },
      ),
      { numRuns: 300 },
    );
  });
});
