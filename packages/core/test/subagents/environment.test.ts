// The subagent tools inside a real Environment, driven call by call (the engine is not in
// the way): which tools are offered, their schemas and timeouts, the order of what one call
// yields (pointer, forwarded child messages, then its own framed output), the host listing
// with the child's model and usage, and a background notice handed over exactly once.
import { mkdtempSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractMarker, isEvent, isModel, parseFields, type OmniMessage, type ToolCallOutputPayload } from "@penguin/omnimessage";
import { createEnvironment, type Environment } from "../../src/environment/index.js";
import { createSubagentRunner } from "../../src/subagents/runner.js";
import { startHarness, TEST_MODEL, TEST_PROVIDER, type Harness } from "../helpers/harness.js";
import { waitUntil } from "../environment/helpers.js";
import { routeConversations } from "./helpers/conversations.js";

let h: Harness | undefined;
let env: Environment | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await env?.dispose();
  await h?.cleanup();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  h = env = scratch = undefined;
});

async function parentEnvironment(harness: Harness): Promise<Environment> {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "penguin-scratch-")));
  const runner = createSubagentRunner({
    workspaceDir: harness.workspace,
    agentFor: async () => harness.agent,
    parent: () => ({ provider: TEST_PROVIDER, modelId: TEST_MODEL, thinkingLevel: "low" }),
  });
  return createEnvironment({ workspaceDir: harness.workspace, scratchpadDir: scratch, subagents: runner });
}

let calls = 0;
async function call(e: Environment, name: string, args: Record<string, unknown>): Promise<{ messages: OmniMessage[]; out: ToolCallOutputPayload; id: string }> {
  const id = `call_sub_${++calls}`;
  const toolCall = { type: "tool_call" as const, role: "assistant" as const, name, arguments: JSON.stringify({ description: "test", ...args }), tool_call_id: id };
  const messages: OmniMessage[] = [];
  for await (const m of e.executeTool({ toolCall, approve: async () => "allow" })) messages.push(m);
  const last = messages.at(-1);
  if (last === undefined || !isModel(last, "tool_call_output")) throw new Error("the call did not end with its output");
  return { messages, out: last.payload, id };
}

describe("subagent tools in the Environment", () => {
  it("are offered only with a runner, with SPEC parameters and timeouts", async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "penguin-scratch-")));
    const plain = createEnvironment({ workspaceDir: scratch, scratchpadDir: scratch });
    expect(plain.listTools().map((t) => t.name)).not.toContain("run_subagent");
    await plain.dispose();

    h = await startHarness();
    env = await parentEnvironment(h);
    const tools = Object.fromEntries(env.listTools().map((t) => [t.name, t.parameters]));
    expect(tools.run_subagent).toMatchObject({
      required: ["prompt", "description"],
      properties: {
        prompt: { type: "string" },
        agent_id: { type: "string" },
        model_id: { type: "string" },
        provider: { type: "string" },
        thinking_level: { enum: ["none", "low", "medium", "high", "xhigh", "max"] },
        yield_time_ms: { type: "integer", default: 300000 },
        run_in_background: { type: "boolean", default: false },
      },
    });
    expect(tools.input_subagent).toMatchObject({ required: ["subagent_id", "description"], properties: { prompt: { default: "" }, yield_time_ms: { type: "integer" } } });
    expect(tools.kill_subagent).toMatchObject({ required: ["subagent_id", "description"] });
    expect(["run_subagent", "input_subagent", "kill_subagent"].map((n) => [env!.timeoutFor(n), env!.toolPermission(n)])).toEqual([
      [600000, "rw"],
      [600000, "rw"],
      [30000, "rw"],
    ]);
  });

  it("yields the pointer, then the child's messages with origin, then its own framed output", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, { "CHILD-ORDER": [{ text: "in order" }] });
    env = await parentEnvironment(h);
    const { messages, out, id } = await call(env, "run_subagent", { prompt: "CHILD-ORDER: go" });
    const childId = /subagent_id: (session-[0-9a-f-]+)/.exec(out.output)?.[1] ?? "";
    expect(out.stop_reason).toBe("completed");
    // The call's stream opens, then the pointer comes before anything of the child.
    expect(messages[0]).toMatchObject({ type: "model_msg", payload: { type: "partial_tool_call_output", event_type: "start", tool_call_id: id } });
    expect(messages[1]).toMatchObject({ type: "event_msg", payload: { type: "subagent", session_id: childId } });
    expect(messages[1]?.origin).toBeUndefined();
    const own = messages.filter((m) => m.origin === undefined && !isEvent(m, "subagent"));
    const forwarded = messages.filter((m) => m.origin !== undefined);
    expect(forwarded[0]).toMatchObject({ type: "session_meta", origin: [childId], payload: { source: "subagent" } });
    expect(forwarded.every((m) => m.origin?.length === 1 && m.origin[0] === childId)).toBe(true);
    expect(forwarded.some((m) => isModel(m, "text") && m.payload.text === "in order")).toBe(true);
    // Every forwarded message comes before the call's own output stream ends.
    const lastForwarded = messages.lastIndexOf(forwarded.at(-1)!);
    const ownStop = messages.findIndex((m) => m.origin === undefined && isModel(m, "partial_tool_call_output") && m.payload.event_type === "stop");
    expect(lastForwarded).toBeLessThan(ownStop);
    // The call's own partials frame its output exactly.
    const ownPartials = own.flatMap((m) => (isModel(m, "partial_tool_call_output") ? [m.payload] : []));
    expect(ownPartials.every((p) => p.tool_call_id === id)).toBe(true);
    expect(ownPartials.map((p) => p.output).join("")).toBe(out.output);
    expect(conv.errors).toEqual([]);
  });

  it("lists children with their model and usage, and hands a background notice over once", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, { "CHILD-LISTED": [{ text: "listed and done", usage: { input: 100, output: 20 } }] });
    env = await parentEnvironment(h);
    const { out } = await call(env, "run_subagent", { prompt: "CHILD-LISTED: go", run_in_background: true, description: "a listed job" });
    const childId = /subagent_id: (session-[0-9a-f-]+)/.exec(out.output)?.[1] ?? "";
    expect(env.listSubagents()).toMatchObject([{ id: childId, provider: TEST_PROVIDER, modelId: TEST_MODEL, label: "a listed job" }]);
    await waitUntil(() => env!.listSubagents()[0]?.status === "idle", "the background child to finish");
    expect(env.listSubagents()[0]).toMatchObject({ turns: 1, tokens: 120 });
    const notices = env.drainNotices();
    expect(notices).toHaveLength(1);
    const body = extractMarker(notices[0] ?? "", "background_task_done") ?? "";
    expect(parseFields(body)).toMatchObject({ kind: "subagent", id: childId, status: "completed", detail: "finished after 1 request(s)" });
    expect(body.split("\n").slice(-2)).toEqual(["a listed job", "listed and done"]);
    expect(env.drainNotices()).toEqual([]);

    // Polling it now shows the messages it produced unattended, and its answer again.
    const poll = await call(env, "input_subagent", { subagent_id: childId });
    expect(poll.out.output).toMatch(/status: completed; turns: 1; tokens: 120\]\nlisted and done$/);
    expect(poll.messages.some((m) => m.origin?.[0] === childId && isEvent(m, "token_usage"))).toBe(true);
    expect(poll.messages.some((m) => m.origin?.[0] === childId && isModel(m, "partial_text"))).toBe(false);

    const killed = await call(env, "kill_subagent", { subagent_id: childId });
    expect(killed.out.output).toContain(`[subagent ${childId} killed]`);
    expect(env.listSubagents()).toEqual([]);
    const again = await call(env, "input_subagent", { subagent_id: childId });
    expect(again.out.stop_reason).toBe("failed");
    expect(again.out.output).toContain("is no longer available: it was killed");
    expect(conv.errors).toEqual([]);
  });
});
