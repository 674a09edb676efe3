// The stream reducer: OmniMessages in, view rows out (lib/stream/reducer.ts).
import { describe, expect, it, beforeEach } from "vitest";
import {
  abortEvent,
  approvalDecision,
  assistantText,
  compactionBegin,
  compactionEnd,
  imageUrl,
  mcpConnectBegin,
  mcpConnectEnd,
  requestBegin,
  requestEnd,
  subagentEvent,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
  wrapMarker,
} from "@penguin/omnimessage";
import { StreamReducer } from "../src/lib/stream/reducer";
import type { ViewItem } from "../src/lib/stream/view-model";
import { at, resetClock, streamedText, streamedToolCall, taskScript } from "./helpers/stream-script";

function run(messages: Parameters<StreamReducer["applyAll"]>[0], end = true): readonly ViewItem[] {
  const r = new StreamReducer();
  r.applyAll(messages);
  if (end) r.endTask();
  return r.items();
}

const kinds = (items: readonly ViewItem[]) => items.map((i) => i.kind);

beforeEach(resetClock);

describe("StreamReducer", () => {
  it("turns a full task into user, thinking, text, tool, answer and stats rows", () => {
    const items = run(taskScript());
    expect(kinds(items)).toEqual(["user", "thinking", "assistant", "tool", "assistant", "stats"]);
    const tool = items[3];
    expect(tool?.kind === "tool" && tool).toMatchObject({ name: "exec_command", status: "done", output: "[no output]\nexit code 0", decision: "allow" });
    const answer = items[4];
    expect(answer?.kind === "assistant" && answer.text).toContain("| hello.txt | 2 |");
    expect(answer?.kind === "assistant" && answer.streaming).toBe(false);
    const stats = items[5];
    expect(stats?.kind === "stats" && stats.stats).toMatchObject({ requests: 2, tokens: { cache_read: 2000, cache_write: 600, output: 100, total: 2700 } });
  });

  it("shows a draft while text streams, and the complete message replaces it without a new row", () => {
    const msgs = streamedText("Hello there, world");
    const r = new StreamReducer();
    r.applyAll(msgs.slice(0, 3));
    const draft = r.items()[0];
    expect(draft).toMatchObject({ kind: "assistant", text: "Hello th", streaming: true });
    r.applyAll(msgs.slice(3));
    expect(r.items()).toHaveLength(1);
    expect(r.items()[0]).toMatchObject({ kind: "assistant", text: "Hello there, world", streaming: false });
  });

  it("keeps one card per tool call whatever the order of call, decision and output", () => {
    const items = run([toolCallOutput({ tool_call_id: "c1", output: "late" }, at()), toolCall({ name: "read_file", arguments: "{}", tool_call_id: "c1" }, at())]);
    expect(items.filter((i) => i.kind === "tool")).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: "tool", name: "read_file", output: "late", status: "done" });
  });

  it("shows a call the session left without output as stopped once the server says idle, and only such calls", () => {
    // A fork cut right after a tool call: the call is in the history, its output never comes.
    const messages = [
      userText("go", at()),
      toolCall({ name: "exec_command", arguments: '{"cmd":"ls"}', tool_call_id: "done" }, at()),
      approvalDecision("allow", "done", at()),
      toolCallOutput({ tool_call_id: "done", output: "a.txt" }, at()),
      toolCall({ name: "exec_command", arguments: '{"cmd":"make"}', tool_call_id: "cut" }, at()),
      approvalDecision("allow", "cut", at()),
    ];
    const r = new StreamReducer();
    r.applyAll(messages);
    const before = r.items().filter((i) => i.kind === "tool");
    expect(before.map((t) => t.kind === "tool" && t.status)).toEqual(["done", "running"]);
    r.endTask();
    const after = r.items().filter((i) => i.kind === "tool");
    expect(after.map((t) => t.kind === "tool" && t.status)).toEqual(["done", "aborted"]);
    const cut = after[1];
    expect(cut?.kind === "tool" && cut.endedAt).toBe(Date.parse(messages[5]!.timestamp));
  });

  it("leaves a running call alone when the next human input opens a new task", () => {
    const r = new StreamReducer();
    r.applyAll([userText("go", at()), toolCall({ name: "exec_command", arguments: "{}", tool_call_id: "slow" }, at()), approvalDecision("allow", "slow", at()), userText("and also", at())]);
    const tool = r.items().find((i) => i.kind === "tool");
    expect(tool?.kind === "tool" && tool.status).toBe("running");
  });

  it("marks denied and policy-forbidden calls", () => {
    const items = run([
      userText("go", at()),
      toolCall({ name: "exec_command", arguments: '{"cmd":"rm -rf /"}', tool_call_id: "a" }, at()),
      approvalDecision("forbidden", "a", { ...at(), policyRule: "no-rm-root" }),
      toolCallOutput({ tool_call_id: "a", output: "vetoed", stop_reason: "aborted" }, at()),
      toolCall({ name: "exec_command", arguments: '{"cmd":"ls"}', tool_call_id: "b" }, at()),
      approvalDecision("deny", "b", at()),
      toolCallOutput({ tool_call_id: "b", output: "denied", stop_reason: "aborted" }, at()),
    ]);
    const tools = items.filter((i) => i.kind === "tool");
    expect(tools.map((t) => t.kind === "tool" && t.status)).toEqual(["forbidden", "denied"]);
    expect(tools[0]?.kind === "tool" && tools[0].policyRule).toBe("no-rm-root");
  });

  it("records a planned retry with its deadline, superseded by the next request", () => {
    const end = requestEnd("failed", { error_message: "HTTP 503", attempt: 1, retry_in_ms: 4000 }, at());
    const r = new StreamReducer();
    r.applyAll([userText("hi", at()), requestBegin(at()), end]);
    const row = r.items().find((i) => i.kind === "request_error");
    expect(row).toMatchObject({ status: "failed", message: "HTTP 503", attempt: 1, retryInMs: 4000, superseded: false, retryAt: Date.parse(end.timestamp) + 4000 });
    r.apply(requestBegin(at()));
    expect(r.items().find((i) => i.kind === "request_error")).toMatchObject({ superseded: true });
  });

  it("locks on an auth failure and unlocks on a completed request or on demand", () => {
    const r = new StreamReducer();
    r.applyAll([userText("hi", at()), requestBegin(at()), requestEnd("auth", { error_message: "401 invalid key" }, at())]);
    expect(r.authLocked).toBe(true);
    expect(r.authMessage).toBe("401 invalid key");
    r.unlockAuth();
    expect(r.authLocked).toBe(false);
    r.applyAll([requestBegin(at()), requestEnd("auth", {}, at())]);
    expect(r.authLocked).toBe(true);
    r.applyAll([requestBegin(at()), requestEnd("completed", undefined, at())]);
    expect(r.authLocked).toBe(false);
  });

  it("folds subagent messages into one row per child, with a preview", () => {
    const items = run([
      userText("delegate", at()),
      withOrigin(userText("sub task", { ...at(), sender: "parent_agent" }), "session-child-1"),
      withOrigin(assistantText("child says hi", at()), "session-child-1"),
      withOrigin(withOrigin(assistantText("grandchild", at()), "session-grand"), "session-child-1"),
      subagentEvent("session-child-2", at()),
    ]);
    const rows = items.filter((i) => i.kind === "subagent");
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ childId: "session-child-1", messages: 3, preview: "grandchild" });
    expect(rows[1]).toMatchObject({ childId: "session-child-2" });
  });

  it("renders compaction, MCP and abort rows, and stops running tools on abort", () => {
    const items = run([
      userText("go", at()),
      mcpConnectBegin(["files"], at()),
      mcpConnectEnd("completed", [{ server: "files", transport: "stdio", status: "connected", duration_ms: 120, tools: ["read"] }], at()),
      compactionBegin({ reason: "manual", mode: "summarize", context: 9000, turns: 4 }, at()),
      compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }, at()),
      ...streamedToolCall("t1", "exec_command", '{"cmd":"sleep 100"}'),
      abortEvent("user", at()),
    ]);
    expect(kinds(items)).toEqual(["user", "mcp", "compaction", "tool", "notice", "stats"]);
    expect(items[1]).toMatchObject({ status: "completed", results: [{ server: "files" }] });
    expect(items[2]).toMatchObject({ status: "completed", mode: "summarize" });
    expect(items[3]).toMatchObject({ status: "aborted" });
    expect(items[4]).toMatchObject({ tag: "abort", title: "Stopped" });
  });

  it("reads markers: steering, skills, attachments, harness notes and images", () => {
    const prompt = `${wrapMarker("turn_aborted", "the user stopped")}\n${wrapMarker("use_skills", "pdf")}\nSummarise this\n[attached file: /w/scratch/uploads/1-a.pdf]`;
    const items = run([
      userText(prompt, at()),
      imageUrl("data:image/png;base64,AAAA", at()),
      requestBegin(at()),
      userText(wrapMarker("user_steering", "use bullet points"), at()),
    ]);
    expect(kinds(items)).toEqual(["notice", "user", "user"]);
    expect(items[0]).toMatchObject({ kind: "notice", tag: "turn_aborted" });
    expect(items[1]).toMatchObject({ kind: "user", text: "Summarise this", skills: ["pdf"], images: ["data:image/png;base64,AAAA"], attachments: [{ kind: "file", path: "/w/scratch/uploads/1-a.pdf" }] });
    expect(items[2]).toMatchObject({ kind: "user", variant: "steer", text: "use bullet points" });
  });

  it("starts a new task (and a stats row) at each human prompt after output", () => {
    const items = run([...taskScript("one"), ...taskScript("two")]);
    expect(items.filter((i) => i.kind === "stats")).toHaveLength(2);
    expect(items.filter((i) => i.kind === "user").map((u) => u.kind === "user" && u.text)).toEqual(["one", "two"]);
  });

  it("gives the same rows for the trace's order (request_begin before the prompt) as for the live order", () => {
    const live = taskScript();
    const [prompt, begin, ...rest] = live;
    const traced = [begin!, prompt!, ...rest];
    expect(JSON.stringify(run(traced))).toBe(JSON.stringify(run(live)));
    expect(run(traced).filter((i) => i.kind === "stats")).toHaveLength(1);
  });

  it("keeps the open task's stats at the end while it runs", () => {
    const r = new StreamReducer();
    r.applyAll(taskScript());
    const last = r.items().at(-1);
    expect(last).toMatchObject({ kind: "stats", running: true });
    const before = r.items();
    expect(r.items()).toBe(before);
    r.endTask();
    expect(r.items().at(-1)).toMatchObject({ kind: "stats", running: false, id: last?.id });
  });

  it("gives unchanged rows the same object across updates (memoised rows stay put)", () => {
    const r = new StreamReducer();
    const msgs = taskScript();
    r.applyAll(msgs.slice(0, 20));
    const first = r.items()[0];
    r.applyAll(msgs.slice(20));
    expect(r.items()[0]).toBe(first);
  });
});
