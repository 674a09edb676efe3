// evolve, the one reducer: given a state folded from some events, when one more event is
// folded, then the state changes as the rule for that event says (and the input state is
// never changed). The context rules are also covered, through resume, by core's replay tests.
import { describe, expect, it } from "vitest";
import {
  abortEvent,
  approvalDecision,
  approvalRequested,
  assistantText,
  compactionBegin,
  compactionEnd,
  eventMessage,
  forkedFrom,
  goalFinished,
  goalStarted,
  requestBegin,
  requestEnd,
  sessionArchived,
  sessionMeta,
  sessionTitle,
  settingsChanged,
  steeringQueued,
  steeringRecalled,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
  wrapMarker,
  type OmniMessage,
} from "@penguin/omnimessage";
import { carryOverOf, evolve, foldTrace, initialSessionState, INTERRUPTED_BY_EXIT, INTERRUPTED_BY_USER, type SessionState } from "../src/index.js";

const at = "2026-12-01T09:00:00.000Z";
const given = (...events: OmniMessage[]): SessionState => foldTrace(events);
const texts = (ms: readonly OmniMessage[]) =>
  ms.map((m) => (m.type === "model_msg" && m.payload.type === "text" ? m.payload.text : m.type === "model_msg" && m.payload.type === "tool_call_output" ? m.payload.output : m.type === "model_msg" ? m.payload.type : m.type));
const counts = { cache_read: 0, cache_write: 10, output: 5, total: 15 };
const meta = sessionMeta({ session_id: "session-2026-12-01-09-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" });

describe("evolve: the context", () => {
  it("given an open window with input and an answer, when request_end completed, then both are committed and a turn counted", () => {
    const state = given(requestBegin(), userText("hi"), assistantText("hello"));
    const next = evolve(state, requestEnd("completed"));
    expect(texts(next.history.toArray())).toEqual(["hi", "hello"]);
    expect(next.turns).toBe(1);
    expect(next.window).toBeUndefined();
    expect(state.window).toBeDefined();
    expect(state.history.size).toBe(0);
  });

  it("given a committed tool call, when its output arrives, then it opens the next request's input", () => {
    const state = given(requestBegin(), userText("go"), toolCall({ name: "t", arguments: "{}", tool_call_id: "c1" }), requestEnd("completed"));
    expect(texts(carryOverOf(state, at))).toEqual([INTERRUPTED_BY_EXIT]);
    const next = evolve(state, toolCallOutput({ tool_call_id: "c1", output: "done" }));
    expect(texts(carryOverOf(next, at))).toEqual(["done"]);
  });

  it("given a committed call without output, when an abort is recorded, then its placeholder says the user aborted it", () => {
    const state = given(requestBegin(), userText("go"), toolCall({ name: "t", arguments: "{}", tool_call_id: "c1" }), requestEnd("completed"));
    expect(texts(carryOverOf(evolve(state, abortEvent("aborted by user")), at))).toEqual([INTERRUPTED_BY_USER]);
  });

  it("given a window, when request_end failed, then its input stays pending for the retry and nothing is committed", () => {
    const next = evolve(given(requestBegin(), userText("hi")), requestEnd("timeout", { attempt: 1, retry_in_ms: 2000 }));
    expect(next.history.size).toBe(0);
    expect(texts(next.pending.toArray())).toEqual(["hi"]);
  });

  it("given a window that produced text, when it is aborted, then a [turn_aborted] note joins the pending input", () => {
    const next = evolve(given(requestBegin(), userText("hi"), assistantText("partial answer")), requestEnd("aborted"));
    const pending = texts(next.pending.toArray());
    expect(pending[0]).toBe("hi");
    expect(pending[1]).toContain("[turn_aborted]");
    expect(pending[1]).toContain("partial answer");
  });

  it("given a duplicated tool_call line, when folded again, then the state is unchanged", () => {
    const call = toolCall({ name: "t", arguments: "{}", tool_call_id: "c1" });
    const state = given(requestBegin(), call);
    expect(evolve(state, call)).toBe(state);
    expect(state.toolCallIds.toArray()).toEqual(["c1"]);
  });

  it("given a completed compaction span, when it ends, then the context closes and the summary is kept", () => {
    const state = given(requestBegin(), userText("hi"), assistantText("hello"), requestEnd("completed"), compactionBegin({ reason: "manual", mode: "summarize", context: 10, turns: 1 }), requestBegin(), assistantText("[summary]we said hi[/summary]"), requestEnd("completed"));
    expect(state.compaction).toEqual({ status: "running", reason: "manual", mode: "summarize" });
    const next = evolve(state, compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }));
    expect(next.history.size).toBe(0);
    expect(next.turns).toBe(0);
    expect(next.contextClosed).toBe(true);
    expect(next.pendingSummary).toBe("we said hi");
    expect(next.compaction).toEqual({ status: "idle", last: { reason: "manual", mode: "summarize", status: "completed" } });
  });

  it("given token usage, when folded, then session and last request counts are taken from it", () => {
    const next = evolve(initialSessionState, tokenUsage(counts, counts));
    expect(next.sessionUsage).toEqual(counts);
    expect(next.lastRequest).toEqual(counts);
  });
});

describe("evolve: session facts", () => {
  it("given an approval request, when its decision is recorded, then it is no longer pending", () => {
    const state = given(approvalRequested({ tool_call_id: "c1", name: "exec_command" }));
    expect(state.pendingApprovals).toEqual([{ toolCallId: "c1", name: "exec_command" }]);
    expect(evolve(state, approvalDecision("allow", "c1")).pendingApprovals).toEqual([]);
  });

  it("given queued steering, when one is recalled and the rest is delivered, then the queue follows", () => {
    const state = given(steeringQueued("s1", "a"), steeringQueued("s2", "b"));
    expect(state.steering.map((s) => s.id)).toEqual(["s1", "s2"]);
    const recalled = evolve(state, steeringRecalled("s1"));
    expect(recalled.steering).toEqual([{ id: "s2", text: "b" }]);
    const delivered = evolve(recalled, userText(wrapMarker("user_steering", "b")));
    expect(delivered.steering).toEqual([]);
  });

  it("given steering queued after a delivery text was built, when that text is recorded, then only the items it carries are delivered", () => {
    const state = given(steeringQueued("s1", "first"), steeringQueued("s2", "second\n\nin two paragraphs"), steeringQueued("s3", "late"));
    const delivered = evolve(state, userText(wrapMarker("user_steering", "first\n\nsecond\n\nin two paragraphs")));
    expect(delivered.steering).toEqual([{ id: "s3", text: "late" }]);
    expect(evolve(delivered, userText(wrapMarker("user_steering", "late"))).steering).toEqual([]);
  });

  it("given queued steering, when a [user_steering] text that matches no prefix of the queue is recorded (an older engine's), then the whole queue is delivered", () => {
    expect(evolve(given(steeringQueued("s1", "a"), steeringQueued("s2", "b")), userText(wrapMarker("user_steering", "something else"))).steering).toEqual([]);
  });

  it("given queued steering, when the run aborts, then the queue is dropped", () => {
    expect(evolve(given(steeringQueued("s1", "a")), abortEvent("aborted by user")).steering).toEqual([]);
  });

  it("given queued steering during a manual compaction, when it ends, then the steering becomes input for the next run", () => {
    const state = given(requestBegin(), userText("hi"), requestEnd("completed"), compactionBegin({ reason: "manual", mode: "discard", context: 1, turns: 1 }), steeringQueued("s1", "also this"));
    const next = evolve(state, compactionEnd({ reason: "manual", mode: "discard", status: "completed" }));
    expect(next.steering).toEqual([]);
    expect(texts(next.pending.toArray())).toEqual([wrapMarker("user_steering", "also this")]);
  });

  it("given settings, when only one is changed, then the other is kept", () => {
    const state = given(settingsChanged({ approval_mode: "ask", thinking_level: "high" }));
    expect(evolve(state, settingsChanged({ thinking_level: "low" })).settings).toEqual({ approvalMode: "ask", thinkingLevel: "low" });
  });

  it("given the seeds' session_meta with thinking_level, when folded, then the level is the session's setting", () => {
    const old = { ...meta, payload: { ...meta.payload, thinking_level: "medium" } };
    expect(evolve(initialSessionState, old).settings).toEqual({ thinkingLevel: "medium" });
  });

  it("given title, archive, goal and fork events, when folded, then each fact is in the state", () => {
    const state = given(meta, forkedFrom("session-2026-11-30-10-00-00-aaaaaaaa", "001:000012"), sessionTitle("Fix the build"), sessionArchived(true), goalStarted("ship", 500000, { at }));
    expect(state.title).toBe("Fix the build");
    expect(state.archived).toBe(true);
    expect(state.forkedFrom).toEqual({ sessionId: "session-2026-11-30-10-00-00-aaaaaaaa", at: "001:000012" });
    expect(state.goal).toEqual({ objective: "ship", budget: 500000, startedAt: at });
    const finished = evolve(state, goalFinished({ outcome: "complete", rounds: 3, tokens_used: 1200 }));
    expect(finished.goal).toMatchObject({ outcome: "complete", rounds: 3, tokensUsed: 1200 });
    expect(evolve(finished, sessionArchived(false)).archived).toBe(false);
  });

  it("given file tool calls, when folded, then the files read and written are listed once each", () => {
    const state = given(
      requestBegin(),
      toolCall({ name: "read_file", arguments: JSON.stringify({ file_path: "/w/a.ts" }), tool_call_id: "c1" }),
      toolCall({ name: "read_file", arguments: JSON.stringify({ file_path: "/w/a.ts" }), tool_call_id: "c2" }),
      toolCall({ name: "edit_file", arguments: JSON.stringify({ file_path: "/w/b.ts" }), tool_call_id: "c3" }),
      toolCall({ name: "write_file", arguments: "not json", tool_call_id: "c4" }),
    );
    expect(state.filesRead).toEqual(["/w/a.ts"]);
    expect(state.filesWritten).toEqual(["/w/b.ts"]);
  });

  it("given any state, when an event it has no rule for or a child's message arrives, then the state is the same object", () => {
    const state = given(meta, requestBegin(), userText("hi"));
    expect(evolve(state, withOrigin(assistantText("from a child"), "session-x"))).toBe(state);
    const unknown = { ...eventMessage({ type: "request_begin" }), payload: { type: "from_the_future" } } as unknown as OmniMessage;
    expect(evolve(state, unknown)).toBe(state);
  });
});
