// Given/when/then for the timeline projection on :memory:.
import { describe, expect, it } from "vitest";
import { assistantText, compactionBegin, compactionEnd, requestBegin, requestEnd, sessionMeta, subagentEvent, tokenUsage, toolCall, toolCallOutput, userText } from "@penguin/omnimessage";
import { projectionSpec, traceEvents } from "@penguin/projections-runner";
import { sessionTimeline, timelineProjection } from "../src/index.js";

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
});
