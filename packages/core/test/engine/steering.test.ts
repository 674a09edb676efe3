// Steering: text sent while a task runs reaches the model at the next input assembly as a
// [user_steering] user text (recallable until then), and steering that arrives during the
// final answer continues the task instead of being dropped.
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const userTexts = (i: number) => h!.kit.requests[i]!.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");

describe("steering", () => {
  it("is delivered after the running tools, and a recalled one is not", async () => {
    h = await startHarness({
      script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "sleep 0.3; echo tool-done", description: "wait" } }] }, { text: "ok, adjusted" }],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    expect(session.steer("too early")).toBe(false);
    let recalled: string | undefined;
    const messages = await collect(session.run("start", { approve: allow }), (m) => {
      if (m.type === "model_msg" && m.payload.type === "partial_tool_call_output" && m.payload.event_type === "start") {
        const keep = session.queueSteering("use the staging database");
        const drop = session.queueSteering("never mind this one");
        expect(keep).toBeDefined();
        recalled = session.recallSteering(drop!);
        expect(session.pendingSteering().map((s) => s.text)).toEqual(["use the staging database"]);
      }
    });
    expect(recalled).toBe("never mind this one");
    const texts = userTexts(1);
    expect(texts).toEqual(["start", "[user_steering]\nuse the staging database\n[/user_steering]"]);
    // Steering is streamed to the host and traced as input of the request that carried it.
    expect(messages.some((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text.startsWith("[user_steering]"))).toBe(true);
    const trace = traceOf(session.tracePath);
    expect(trace.filter((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text.includes("never mind"))).toEqual([]);
    await session.dispose();
  });

  it("arriving during the final answer continues the task", async () => {
    h = await startHarness({ script: [{ text: "a slow final answer", chunkSize: 2, delayMs: 20 }, { text: "handled the steering" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    let steered = false;
    await collect(session.run("go", { approve: allow }), (m) => {
      if (!steered && m.type === "model_msg" && m.payload.type === "partial_text") steered = session.steer("and one more thing");
    });
    expect(steered).toBe(true);
    expect(h.kit.requests).toHaveLength(2);
    expect(userTexts(1).at(-1)).toBe("[user_steering]\nand one more thing\n[/user_steering]");
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });
});
