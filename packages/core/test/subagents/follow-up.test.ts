// input_subagent: a follow-up task to an idle child (same child session, same context), and
// a child still running after the yield window: "still running", then steering and a wait
// that returns its answer.
import { afterEach, describe, expect, it } from "vitest";
import { isModel } from "@penguin/omnimessage";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { lastSubagentId, routeConversations, runSubagent, toolResults, userTexts } from "./helpers/conversations.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("input_subagent", () => {
  it("sends a follow-up task to an idle child, which keeps its context", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, {
      "PARENT-FOLLOW": [
        { toolCalls: [runSubagent({ prompt: "CHILD-MEMO: remember the number 7", description: "remember" })] },
        (r) => ({ toolCalls: [{ name: "input_subagent", arguments: { subagent_id: lastSubagentId(r), prompt: "which number?", description: "ask" } }] }),
        { text: "done" },
      ],
      "CHILD-MEMO": [
        { text: "noted" },
        (r) => ({ text: userTexts(r).join(" | ").includes("remember the number 7") && userTexts(r).at(-1) === "which number?" ? "it was 7" : "lost my context" }),
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-FOLLOW: go", { approve: allow }));
    const parent = conv.requests("PARENT-FOLLOW");
    const id = lastSubagentId(parent[1]!);
    expect(toolResults(parent[2]!).at(-1)).toMatch(new RegExp(`^\\[subagent_id: ${id}; status: completed; turns: 1; tokens: \\d+\\]\\nit was 7$`));
    // One child session, one trace, two tasks from the parent.
    const files = sessionTraceFiles(h.agent.paths, id);
    expect(files).toHaveLength(1);
    const prompts = traceOf(files[0]!.file).flatMap((m) => (isModel(m, "text") && m.payload.role === "user" ? [m.payload] : []));
    expect(prompts.map((p) => [p.text, p.sender])).toEqual([
      ["CHILD-MEMO: remember the number 7", "parent_agent"],
      ["which number?", "parent_agent"],
    ]);
    expect(conv.errors).toEqual([]);
    await session.dispose();
  });

  it("a child still running after the window keeps running; steering and a wait get its answer", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, {
      "PARENT-SLOW": [
        { toolCalls: [runSubagent({ prompt: "CHILD-SLOW: think slowly", yield_time_ms: 0, description: "slow job" })] },
        (r) => ({
          toolCalls: [{ name: "input_subagent", arguments: { subagent_id: lastSubagentId(r), prompt: "then say bye", description: "steer it" } }],
        }),
        { text: "done" },
      ],
      "CHILD-SLOW": [
        // At least 12 events 150 ms apart: far past the 250 ms window, and still streaming
        // when the steering arrives right after it.
        { text: "a slow answer arriving bit by bit", chunkSize: 3, delayMs: 150 },
        (r) => ({ text: userTexts(r).some((t) => t.startsWith("[user_steering]") && t.includes("then say bye")) ? "bye" : "no steering seen" }),
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-SLOW: go", { approve: allow }));
    const parent = conv.requests("PARENT-SLOW");
    const id = lastSubagentId(parent[1]!);
    const first = toolResults(parent[1]!).at(-1) ?? "";
    expect(first).toContain(`[subagent_id: ${id}; status: running; turns: 0; tokens: 0]`);
    expect(first).toContain(`still running after 250 ms; it keeps running in the background`);
    expect(toolResults(parent[2]!).at(-1)).toMatch(/status: completed; turns: 2; tokens: \d+\]\nbye$/);
    expect(conv.requests("CHILD-SLOW")).toHaveLength(2);
    // A foreground child sends no background notice.
    expect(parent.flatMap(userTexts).some((t) => t.includes("[background_task_done]"))).toBe(false);
    expect(conv.errors).toEqual([]);
    await session.dispose();
  });
});
