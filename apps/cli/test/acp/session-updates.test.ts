// The OmniMessage → ACP session/update mapping as given/when/then: given the messages of a
// turn (live, with streamed partials) or of a trace (complete messages only), then the updates
// an editor gets. The two must show the same thing, and what is not the session's own (a
// subagent's messages, texts the harness adds) must not reach the editor.
import { approvalDecision, assistantText, modelMessage, requestBegin, requestEnd, sessionMeta, thinking, tokenUsage, toolCall, toolCallOutput, userText, type OmniMessage } from "@penguin/omnimessage";
import { describe, expect, it } from "vitest";
import { replayUpdates, SessionUpdateMapper, toolKind } from "../../src/acp/session-updates.js";

const WS = "/work/project";
const partialText = (text: string): OmniMessage => modelMessage({ type: "partial_text", role: "assistant", event_type: "delta", text });
const partialThinking = (text: string): OmniMessage => modelMessage({ type: "partial_thinking", role: "assistant", event_type: "delta", thinking: text });

const call = toolCall({ name: "edit_file", arguments: JSON.stringify({ file_path: "src/a.ts", old_string: "x", new_string: "y" }), tool_call_id: "call_1" });
const complete: OmniMessage[] = [
  userText("fix a.ts"),
  requestBegin(),
  thinking("look at a.ts"),
  assistantText("Fixing it."),
  call,
  requestEnd("completed"),
  approvalDecision("allow", "call_1"),
  toolCallOutput({ tool_call_id: "call_1", output: "Edited src/a.ts" }),
  requestBegin(),
  assistantText("Done."),
  requestEnd("completed"),
];

describe("session updates", () => {
  it("given a trace, then each complete message is one update, in order, with the tool call's kind, title and location", () => {
    expect(replayUpdates(complete, WS)).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "fix a.ts" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "look at a.ts" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Fixing it." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "edit_file src/a.ts",
        kind: "edit",
        status: "pending",
        rawInput: { file_path: "src/a.ts", old_string: "x", new_string: "y" },
        locations: [{ path: "/work/project/src/a.ts" }],
      },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", content: [{ type: "content", content: { type: "text", text: "Edited src/a.ts" } }] },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } },
    ]);
  });

  it("given a live turn that streamed its text and thinking, then the partials are the chunks and the complete messages add nothing", () => {
    const live: OmniMessage[] = [
      requestBegin(),
      partialThinking("look at "),
      partialThinking("a.ts"),
      thinking("look at a.ts"),
      partialText("Fixing"),
      partialText(" it."),
      assistantText("Fixing it."),
      call,
      requestEnd("completed"),
    ];
    const mapper = new SessionUpdateMapper(WS);
    const texts = live.flatMap((m) => mapper.map(m)).flatMap((u) => ("content" in u && !Array.isArray(u.content) && u.content.type === "text" ? [`${u.sessionUpdate}:${u.content.text}`] : []));
    expect(texts).toEqual(["agent_thought_chunk:look at ", "agent_thought_chunk:a.ts", "agent_message_chunk:Fixing", "agent_message_chunk: it."]);
  });

  it("given a streamed request that was cut off, then the retried request's complete text is still sent once", () => {
    const mapper = new SessionUpdateMapper(WS);
    const updates = [requestBegin(), partialText("Half"), requestEnd("failed"), requestBegin(), assistantText("Whole answer"), requestEnd("completed")].flatMap((m) => mapper.map(m));
    expect(updates.map((u) => ("content" in u && !Array.isArray(u.content) && u.content.type === "text" ? u.content.text : u.sessionUpdate))).toEqual(["Half", "Whole answer"]);
  });

  it("given a subagent's messages or a harness text, then the editor gets nothing of them", () => {
    const child = { origin: ["session-child"] };
    const updates = replayUpdates([assistantText("child says", child), toolCall({ name: "read_file", arguments: "{}", tool_call_id: "c" }, child), userText("[steering] note", { sender: "harness" })], WS);
    expect(updates).toEqual([]);
  });

  it("given token usage, then a usage_update with the context window from the session's meta, none while the window is unknown", () => {
    const counts = (total: number) => ({ cache_read: 0, cache_write: total - 10, output: 10, total });
    const meta = (window: number | "unknown") =>
      sessionMeta({ session_id: "s", provider: "p", model_id: "m", model_context_window: window, system_prompt: "", agent_state: "/a", workspace: WS });
    expect(replayUpdates([meta(200000), tokenUsage(counts(1500), counts(1500))], WS)).toEqual([{ sessionUpdate: "usage_update", used: 1500, size: 200000 }]);
    expect(replayUpdates([meta("unknown"), tokenUsage(counts(1500), counts(1500))], WS)).toEqual([]);
  });

  it("a denied or failed call ends failed; tool kinds follow what the tool does", () => {
    const updates = replayUpdates([approvalDecision("deny", "call_1"), toolCallOutput({ tool_call_id: "call_1", output: "[denied]", stop_reason: "failed" })], WS);
    expect(updates).toEqual([{ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "failed", content: [{ type: "content", content: { type: "text", text: "[denied]" } }] }]);
    expect(["read_file", "write_file", "exec_command", "run_subagent"].map(toolKind)).toEqual(["read", "edit", "execute", "other"]);
  });
});
