// The resume decider as given/when/then: the folded state of a crashed session, and the
// events that close what the crash left dangling; and properties: after them nothing is left
// dangling (no compaction span, no queued steering), and deciding again appends nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantText, compactionBegin, requestBegin, requestEnd, steeringQueued, steeringRecalled, userText, type OmniMessage } from "@penguin/omnimessage";
import { CRASHED_DURING_COMPACTION, decideResume } from "../../src/deciders/resume.js";
import { AT, appended, given, lines } from "./given.js";

const close = { type: "close_dangling", at: AT } as const;

describe("resume decider", () => {
  it("given a session that ended cleanly, when it resumes, then nothing", () => {
    expect(decideResume(given(requestBegin(), userText("hi"), assistantText("hello"), requestEnd("completed")), close)).toEqual([]);
  });

  it("given a crash inside an automatic compaction, when it resumes, then the compaction is recorded as failed and the old context kept", () => {
    const state = given(requestBegin(), userText("hi"), assistantText("hello"), requestEnd("completed"), compactionBegin({ reason: "context", mode: "summarize", context: 9, turns: 1 }), requestBegin());
    const events = decideResume(state, close);
    expect(lines(events)).toEqual([{ event_msg: { type: "compaction_end", reason: "context", mode: "summarize", status: "failed", error_message: CRASHED_DURING_COMPACTION } }]);
    const after = appended(state, events);
    expect([after.compactionSpan, after.contextClosed, after.history.size]).toEqual([undefined, false, 2]);
  });

  it("given steering the crashed run never delivered, when it resumes, then each item is recalled", () => {
    const state = given(requestBegin(), userText("go"), steeringQueued("s1", "a"), steeringQueued("s2", "b"), steeringRecalled("s1"));
    expect(lines(decideResume(state, close))).toEqual([{ event_msg: { type: "steering_recalled", steering_id: "s2" } }]);
  });

  it("given steering queued during a manual compaction that crashed, when it resumes, then its end keeps the steering as input: nothing to recall", () => {
    const state = given(requestBegin(), userText("hi"), requestEnd("completed"), compactionBegin({ reason: "manual", mode: "summarize", context: 0, turns: 1 }), steeringQueued("s1", "later"));
    const events = decideResume(state, close);
    expect(lines(events).map((l) => Object.values(l as object)[0])).toEqual([expect.objectContaining({ type: "compaction_end", status: "failed" })]);
    expect(appended(state, events).pending.toArray().map((m) => (m.payload as { text?: string }).text)).toContain("[user_steering]\nlater\n[/user_steering]");
  });

  it("the events carry the command's time", () => {
    const [event] = decideResume(given(steeringQueued("s1", "a")), close);
    expect(event!.timestamp).toBe(AT);
  });

  it("property: whatever the crash cut, nothing dangles after the decided events, and a second resume decides nothing", () => {
    const piece = fc.oneof(
      fc.constant<OmniMessage[]>([requestBegin(), userText("q"), assistantText("a"), requestEnd("completed")]),
      fc.constant<OmniMessage[]>([requestBegin(), userText("cut")]),
      fc.constantFrom("context" as const, "manual" as const, "turns" as const).map((reason) => [compactionBegin({ reason, mode: "summarize", context: 1, turns: 1 }), requestBegin()]),
      fc.integer({ min: 1, max: 3 }).map((n) => [steeringQueued(`s${n}`, `t${n}`)]),
      fc.integer({ min: 1, max: 3 }).map((n) => [steeringRecalled(`s${n}`)]),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const state = given(...pieces.flat());
        const after = appended(state, decideResume(state, close));
        expect(after.compactionSpan).toBeUndefined();
        expect(after.steering).toEqual([]);
        expect(decideResume(after, close)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
