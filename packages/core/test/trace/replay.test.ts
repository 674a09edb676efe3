// replayTrace: the committed history and carry-over rebuilt from trace records follow the
// engine's rules (commit on request_end completed, pending input on failure, placeholders
// for calls without outputs, compaction closing the context).
import { describe, expect, it } from "vitest";
import {
  abortEvent,
  assistantText,
  compactionBegin,
  compactionEnd,
  requestBegin,
  requestEnd,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  type OmniMessage,
} from "@penguin/omnimessage";
import { replayTrace } from "../../src/trace/replay.js";
import { parseTraceText } from "../../src/trace/reader.js";
import { INTERRUPTED_BY_EXIT, INTERRUPTED_BY_USER } from "@penguin/trace";

const SEEDS_EXAMPLE = [
  '{"timestamp":"2026-07-18T03:10:22.531Z","type":"session_meta","payload":{"session_id":"session-2026-07-18-11-10-22-3f8a1c2d","provider":"deepseek","model_id":"deepseek-v4-pro","model_context_window":1000000,"system_prompt":"…","tools":[],"thinking_level":"medium","agent_state":"/home/u/.penguin/data/default_project/agents/default_agent/agent_state","workspace":"/home/u/work"}}',
  '{"timestamp":"2026-07-18T03:10:22.600Z","type":"event_msg","payload":{"type":"request_begin"}}',
  '{"timestamp":"2026-07-18T03:10:22.601Z","type":"model_msg","payload":{"type":"text","role":"user","text":"创建 hello.txt"}}',
  '{"timestamp":"2026-07-18T03:10:23.000Z","type":"model_msg","payload":{"type":"tool_call","role":"assistant","name":"exec_command","arguments":"{\\"cmd\\":\\"printf hi > hello.txt\\"}","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.001Z","type":"event_msg","payload":{"type":"approval_decision","decision":"allow","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.100Z","type":"model_msg","payload":{"type":"tool_call_output","role":"user","output":"[no output]","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.200Z","type":"event_msg","payload":{"type":"request_end","status":"completed"}}',
  '{"timestamp":"2026-07-18T03:10:23.201Z","type":"event_msg","payload":{"type":"token_usage","session":{"cache_read":0,"cache_write":100,"output":20,"total":120},"request":{"cache_read":0,"cache_write":100,"output":20,"total":120}}}',
].join("\n") + "\n";

const kinds = (ms: OmniMessage[]) => ms.map((m) => (m.type === "model_msg" ? `${m.payload.type}:${m.payload.role}` : m.type));
const texts = (ms: OmniMessage[]) => ms.map((m) => (m.type === "model_msg" && m.payload.type === "text" ? m.payload.text : m.type === "model_msg" && m.payload.type === "tool_call_output" ? m.payload.output : ""));

describe("replayTrace", () => {
  it("reads the seeds' example: the call is committed and its output is carried over", () => {
    const { messages, skipped } = parseTraceText(SEEDS_EXAMPLE);
    expect(skipped).toEqual([]);
    const r = replayTrace(messages);
    expect(r.meta?.session_id).toBe("session-2026-07-18-11-10-22-3f8a1c2d");
    expect(kinds(r.history)).toEqual(["text:user", "tool_call:assistant"]);
    expect(kinds(r.carryOver)).toEqual(["tool_call_output:user"]);
    expect(texts(r.carryOver)).toEqual(["[no output]"]);
    expect(r.turns).toBe(1);
    expect(r.sessionUsage.total).toBe(120);
    expect(r.toolCallIds).toEqual(["call_0"]);
  });

  it("builds each request's input from the previous outputs, in call order, then new input", () => {
    const r = replayTrace([
      requestBegin(),
      userText("do two things"),
      toolCall({ name: "a", arguments: "{}", tool_call_id: "c1" }),
      toolCall({ name: "b", arguments: "{}", tool_call_id: "c2" }),
      requestEnd("completed"),
      toolCallOutput({ tool_call_id: "c2", output: "B" }),
      toolCallOutput({ tool_call_id: "c1", output: "A" }),
      requestBegin(),
      assistantText("done"),
      requestEnd("completed"),
    ]);
    expect(kinds(r.history)).toEqual(["text:user", "tool_call:assistant", "tool_call:assistant", "tool_call_output:user", "tool_call_output:user", "text:assistant"]);
    expect(texts(r.history).slice(3, 5)).toEqual(["A", "B"]);
    expect(r.carryOver).toEqual([]);
    expect(r.turns).toBe(2);
  });

  it("accepts input recorded before request_begin", () => {
    const r = replayTrace([userText("hi"), requestBegin(), assistantText("hello"), requestEnd("completed")]);
    expect(kinds(r.history)).toEqual(["text:user", "text:assistant"]);
  });

  it("keeps failed attempts' input pending and commits it with the retry's note", () => {
    const r = replayTrace([
      requestBegin(),
      userText("task"),
      toolCall({ name: "a", arguments: "{}", tool_call_id: "x1" }),
      requestEnd("failed", { error_message: "500", attempt: 1, retry_in_ms: 2000 }),
      toolCallOutput({ tool_call_id: "x1", output: "ran" }),
      requestBegin(),
      userText("[turn_retried]\nnote\n[/turn_retried]", { sender: "harness" }),
      assistantText("ok"),
      requestEnd("completed", { attempt: 2 }),
    ]);
    expect(texts(r.history)).toEqual(["task", "[turn_retried]\nnote\n[/turn_retried]", "ok"]);
    expect(kinds(r.history)).not.toContain("tool_call:assistant");
  });

  it("turns an aborted response into input + [turn_aborted], never into history", () => {
    const r = replayTrace([
      requestBegin(),
      userText("task"),
      assistantText("partial answ"),
      toolCall({ name: "a", arguments: "{}", tool_call_id: "y1" }),
      requestEnd("aborted"),
      abortEvent("aborted by user"),
    ]);
    expect(r.history).toEqual([]);
    expect(texts(r.carryOver)[0]).toBe("task");
    expect(texts(r.carryOver)[1]).toMatch(/^\[turn_aborted\]\nThe user interrupted/);
    expect(texts(r.carryOver)[1]).toContain("partial answ");
    expect(texts(r.carryOver)[1]).toContain("- a {} → not run");
  });

  it("fills outputs missing after a commit: user abort vs process exit", () => {
    const base = [requestBegin(), userText("t"), toolCall({ name: "a", arguments: "{}", tool_call_id: "z1" }), toolCall({ name: "b", arguments: "{}", tool_call_id: "z2" }), requestEnd("completed"), toolCallOutput({ tool_call_id: "z2", output: "B done" })];
    const crashed = replayTrace(base);
    expect(texts(crashed.carryOver)).toEqual([INTERRUPTED_BY_EXIT, "B done"]);
    const aborted = replayTrace([...base, abortEvent("aborted by user")]);
    expect(texts(aborted.carryOver)).toEqual([INTERRUPTED_BY_USER, "B done"]);
  });

  it("treats a window left open by a crash as an exit-aborted turn", () => {
    const r = replayTrace([requestBegin(), userText("t"), assistantText("half")]);
    expect(r.history).toEqual([]);
    expect(texts(r.carryOver)[1]).toMatch(/harness process exited/);
  });

  it("closes the context after a completed compaction and keeps the summary", () => {
    const r = replayTrace([
      requestBegin(),
      userText("t"),
      assistantText("a"),
      requestEnd("completed"),
      tokenUsage({ cache_read: 0, cache_write: 10, output: 1, total: 11 }, { cache_read: 0, cache_write: 10, output: 1, total: 11 }),
      compactionBegin({ reason: "manual", mode: "summarize", context: 11, turns: 1 }),
      requestBegin(),
      assistantText("[summary]\nthe goal\n[/summary]"),
      requestEnd("completed"),
      compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }),
    ]);
    expect(r.history).toEqual([]);
    expect(r.contextClosed).toBe(true);
    expect(r.pendingSummary).toBe("the goal");
    expect(r.danglingCompaction).toBeUndefined();
  });

  it("ignores a failed compaction and reports a dangling one", () => {
    const head = [requestBegin(), userText("t"), assistantText("a"), requestEnd("completed")];
    const failed = replayTrace([...head, compactionBegin({ reason: "context", mode: "summarize", context: 5, turns: 1 }), requestBegin(), requestEnd("failed"), compactionEnd({ reason: "context", mode: "summarize", status: "failed" })]);
    expect(kinds(failed.history)).toEqual(["text:user", "text:assistant"]);
    expect(failed.contextClosed).toBe(false);
    const dangling = replayTrace([...head, compactionBegin({ reason: "turns", mode: "discard", context: 5, turns: 1 }), requestBegin()]);
    expect(dangling.danglingCompaction).toEqual({ reason: "turns", mode: "discard" });
    expect(kinds(dangling.history)).toEqual(["text:user", "text:assistant"]);
  });
});

describe("parseTraceText", () => {
  it("tolerates a torn last line, NUL padding and a malformed middle line", () => {
    const lines = SEEDS_EXAMPLE.split("\n").filter(Boolean);
    const text = [lines[0], lines[1], "{not json", lines[2], "\0\0\0" + lines[3]].join("\n") + "\n" + lines[4]!.slice(0, 20);
    const r = parseTraceText(text);
    expect(r.tornTail).toBe(true);
    expect(r.messages).toHaveLength(4);
    expect(r.skipped).toEqual([{ line: 3, reason: "invalid-json" }, { line: 6, reason: "torn" }]);
  });
});
