// Given/when/then for the timeline projection on :memory:.
import { describe, expect, it } from "vitest";
import { assistantText, compactionBegin, compactionEnd, requestBegin, requestEnd, sessionMeta, subagentEvent, tokenUsage, toolCall, toolCallOutput, userText } from "@penguin/omnimessage";
import { projectionSpec, traceEvents } from "@penguin/projections-runner";
import { BLOCK_LINES, sessionEventCount, sessionTimeline, timelineProjection } from "../src/index.js";

const S = "session-2026-01-02-10-00-00-0000000a";
const at = (ms: number) => new Date(Date.UTC(2026, 0, 2, 10, 0, 0) + ms).toISOString();
const t = (cacheRead: number, cacheWrite: number, output: number) => ({ cache_read: cacheRead, cache_write: cacheWrite, output, total: cacheRead + cacheWrite + output });

describe("timeline projection", () => {
  it("given a task with a tool call, when it completes across batches, then requests and tool calls carry durations, sizes and status", async () => {
    const timeline = await projectionSpec(timelineProjection)
      .given(
        traceEvents({ sessionId: S }, [
          sessionMeta({ session_id: S, provider: "p", model_id: "m", model_context_window: 10, system_prompt: "", agent_state: "/s", workspace: "/w" }, { at: at(0) }),
          userText("go", { at: at(10) }),
          requestBegin({ at: at(20) }),
          toolCall({ name: "read_file", arguments: "{}", tool_call_id: "c1" }, { at: at(300) }),
        ]),
      )
      .when(
        traceEvents({ sessionId: S, firstLine: 5 }, [
          requestEnd("completed", undefined, { at: at(320) }),
          tokenUsage(t(100, 20, 7), t(100, 20, 7), { at: at(321) }),
          toolCallOutput({ output: "x", tool_call_id: "c1", stop_reason: "failed" }, { at: at(400) }),
          requestBegin({ at: at(410) }),
          requestEnd("timeout", { error_message: "slow", attempt: 1 }, { at: at(910) }),
          requestBegin({ at: at(920) }),
          assistantText("ok", { at: at(1000) }),
          requestEnd("completed", { attempt: 2 }, { at: at(1020) }),
          tokenUsage(t(220, 5, 3), t(120, 5, 3), { at: at(1021) }),
          subagentEvent("session-2026-01-02-10-00-01-0000000b", { at: at(1030) }),
        ]),
      )
      .then((db) => sessionTimeline(db, S));
    expect(timeline.events.map((e) => `${e.position} ${e.kind}`)).toEqual([
      "001:000001 session_meta",
      "001:000002 text",
      "001:000003 request_begin",
      "001:000004 tool_call",
      "001:000005 request_end",
      "001:000006 token_usage",
      "001:000007 tool_call_output",
      "001:000008 request_begin",
      "001:000009 request_end",
      "001:000010 request_begin",
      "001:000011 text",
      "001:000012 request_end",
      "001:000013 token_usage",
      "001:000014 subagent",
    ]);
    expect(timeline.requests.map((r) => [r.position, r.duration_ms, r.status, r.attempt, r.error_message, r.context_tokens, r.cached_tokens, r.output_tokens])).toEqual([
      ["001:000003", 300, "completed", null, null, 120, 100, 7],
      ["001:000008", 500, "timeout", 1, "slow", null, null, null],
      ["001:000010", 100, "completed", 2, null, 125, 120, 3],
    ]);
    expect(timeline.toolCalls.map((c) => [c.position, c.name, c.duration_ms, c.status])).toEqual([["001:000004", "read_file", 100, "failed"]]);
    expect(timeline.subagents.map((s) => [s.position, s.child_session_id])).toEqual([["001:000014", "session-2026-01-02-10-00-01-0000000b"]]);
  });

  it("given a compaction, then it spans begin to end with its reason, mode and context size", async () => {
    const timeline = await projectionSpec(timelineProjection)
      .given(traceEvents({ sessionId: S }, [compactionBegin({ reason: "context", mode: "summarize", context: 900, turns: 4 }, { at: at(0) })]))
      .when(traceEvents({ sessionId: S, firstLine: 2 }, [compactionEnd({ reason: "context", mode: "summarize", status: "completed" }, { at: at(250) })]))
      .then((db) => sessionTimeline(db, S));
    expect(timeline.compactions.map((c) => [c.position, c.reason, c.mode, c.context_tokens, c.duration_ms, c.status])).toEqual([["001:000001", "context", "summarize", 900, 250, "completed"]]);
  });

  it("keeps the events in blocks of lines: batches cut anywhere, across blocks and files, give the same rows and the same list as one batch", async () => {
    // Lines 1..2.5 blocks of file 1 (every seventh line skipped, as a malformed line is), then file 2.
    const lines = Array.from({ length: BLOCK_LINES * 2.5 }, (_, i) => i + 1).filter((line) => line % 7 !== 0);
    const file1 = lines.flatMap((line, i) => traceEvents({ sessionId: S, firstLine: line }, [userText(`m${i}`, { at: at(i) })]));
    const file2 = traceEvents({ sessionId: S, fileIndex: 2 }, Array.from({ length: 40 }, (_, i) => assistantText(`a${i}`, { at: at(10_000 + i) })));
    const all = [...file1, ...file2];
    const blocks = (db: Parameters<Parameters<ReturnType<typeof projectionSpec>["then"]>[0]>[0]) =>
      Promise.all([db.selectFrom("timeline_event_blocks").selectAll().orderBy("file_index").orderBy("block").execute(), sessionTimeline(db, S), sessionEventCount(db, S)]);
    const [wholeRows, whole, count] = await projectionSpec(timelineProjection).given(all).then(blocks);
    expect(wholeRows.map((r) => [r.file_index, r.block])).toEqual([[1, 0], [1, 1], [1, 2], [2, 0]]);
    expect(count).toBe(all.length);
    expect(whole.events.map((e) => e.position)).toEqual(all.map((e) => `${String(e.fileIndex).padStart(3, "0")}:${String(e.line).padStart(6, "0")}`));
    expect(whole.events.map((e) => [e.ts, e.kind])).toEqual(all.map((e) => [e.ts, e.kind]));
    let spec = projectionSpec(timelineProjection);
    for (let i = 0; i < all.length; ) {
      const size = 1 + ((i * 37) % 300);
      spec = spec.when(all.slice(i, i + size));
      i += size;
    }
    const [cutRows, cut] = await spec.then(blocks);
    expect(cutRows).toEqual(wholeRows);
    expect(cut).toEqual(whole);
  });

  it("gives the same rows whether a session arrives in one batch or one event per batch", async () => {
    const events = traceEvents({ sessionId: S }, [
      sessionMeta({ session_id: S, provider: "p", model_id: "m", model_context_window: 10, system_prompt: "", agent_state: "/s", workspace: "/w" }, { at: at(0) }),
      userText("go", { at: at(1) }),
      requestBegin({ at: at(2) }),
      toolCall({ name: "a", arguments: "{}", tool_call_id: "x" }, { at: at(3) }),
      toolCall({ name: "b", arguments: "{}", tool_call_id: "y" }, { at: at(4) }),
      requestEnd("completed", undefined, { at: at(5) }),
      tokenUsage(t(1, 2, 3), t(1, 2, 3), { at: at(6) }),
      toolCallOutput({ output: "1", tool_call_id: "y" }, { at: at(7) }),
      toolCallOutput({ output: "2", tool_call_id: "x", stop_reason: "aborted" }, { at: at(9) }),
      compactionBegin({ reason: "turns", mode: "discard", context: 50, turns: 9 }, { at: at(10) }),
      requestBegin({ at: at(11) }),
      requestEnd("completed", undefined, { at: at(12) }),
      compactionEnd({ reason: "turns", mode: "discard", status: "completed" }, { at: at(13) }),
      requestBegin({ at: at(14) }),
      requestEnd("completed", undefined, { at: at(15) }),
      tokenUsage(t(4, 5, 6), t(4, 5, 6), { at: at(16) }),
      requestBegin({ at: at(17) }),
      requestEnd("failed", { error_message: "x" }, { at: at(18) }),
      subagentEvent("session-2026-01-02-10-00-09-0000000c", { at: at(19) }),
    ]);
    const everything = (db: Parameters<Parameters<ReturnType<typeof projectionSpec>["then"]>[0]>[0]) => sessionTimeline(db, S);
    const whole = await projectionSpec(timelineProjection).given(events).then(everything);
    let spec = projectionSpec(timelineProjection);
    for (const e of events) spec = spec.when([e]);
    expect(await spec.then(everything)).toEqual(whole);
    expect(whole.requests.map((r) => [r.position, r.status, r.context_tokens])).toEqual([
      ["001:000003", "completed", 3],
      ["001:000011", "completed", null],
      ["001:000014", "completed", 9],
      ["001:000017", "failed", null],
    ]);
  });
});
