// run_subagent's choices: another agent of the project, an explicit model pair (both or
// neither), a thinking level; and the refusals that come back as failed outputs.
import { afterEach, describe, expect, it } from "vitest";
import { isModel } from "@penguin/omnimessage";
import { createAgent } from "../../src/agent.js";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import { readProjectConfig, writeProjectConfig } from "../../src/state/project-config.js";
import { allow, collect, startHarness, TEST_MODEL, TEST_PROVIDER, traceOf, type Harness } from "../helpers/harness.js";
import { routeConversations, runSubagent, subagentIds } from "./helpers/conversations.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function effortOf(body: unknown): unknown {
  if (typeof body !== "object" || body === null || !("reasoning" in body)) return undefined;
  const reasoning: unknown = body.reasoning;
  return typeof reasoning === "object" && reasoning !== null && "effort" in reasoning ? reasoning.effort : undefined;
}

describe("run_subagent options", () => {
  it("runs as another agent, on another model, at another thinking level", async () => {
    h = await startHarness({ protocol: "openai-responses" });
    const config = readProjectConfig(h.agent.paths.projectConfig);
    const base = config.models[0]!;
    writeProjectConfig(h.agent.paths.projectConfig, { ...config, models: [base, { ...base, model_id: "second-model" }] });
    const helper = await createAgent({ root: h.root, agentId: "helper_agent", env: {} });
    const conv = routeConversations(h.kit, {
      "PARENT-OPTIONS": [
        {
          toolCalls: [
            runSubagent({
              prompt: "CHILD-HELPER: help",
              agent_id: "helper_agent",
              provider: TEST_PROVIDER,
              model_id: "second-model",
              thinking_level: "high",
            }),
          ],
        },
        { toolCalls: [runSubagent({ prompt: "CHILD-INHERIT: help" })] },
        { text: "done" },
      ],
      "CHILD-HELPER": [{ text: "helped" }],
      "CHILD-INHERIT": [{ text: "inherited" }],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace, thinkingLevel: "low" });
    const messages = await collect(session.run("PARENT-OPTIONS: delegate", { approve: allow }));
    const [helperChild = ""] = subagentIds(conv.requests("PARENT-OPTIONS")[1]!);

    // The helper agent's trace directory holds the child, with that agent's state and the chosen model.
    expect(sessionTraceFiles(h.agent.paths, helperChild)).toEqual([]);
    const trace = traceOf(sessionTraceFiles(helper.paths, helperChild)[0]!.file);
    expect(trace[0]).toMatchObject({
      type: "session_meta",
      payload: { source: "subagent", provider: TEST_PROVIDER, model_id: "second-model", agent_state: helper.paths.agentState, workspace: session.workspace },
    });
    const forwardedMeta = messages.find((m) => m.type === "session_meta" && m.origin?.[0] === helperChild);
    expect(forwardedMeta).toMatchObject({ payload: { model_id: "second-model" } });
    expect(conv.requests("CHILD-HELPER")[0]!.model).toBe("second-model");
    expect(effortOf(conv.requests("CHILD-HELPER")[0]!.body)).toBe("high");

    // Without choices the child inherits the parent's agent, model and thinking level.
    const inherit = conv.requests("CHILD-INHERIT")[0]!;
    expect(inherit.model).toBe(TEST_MODEL);
    expect(effortOf(inherit.body)).toBe("low");
    expect(effortOf(conv.requests("PARENT-OPTIONS")[0]!.body)).toBe("low");
    expect(conv.errors).toEqual([]);
    await session.dispose();
  });

  it("refuses half a model pair, an unknown agent and an unknown model, as failed outputs", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, {
      "PARENT-REFUSED": [
        {
          toolCalls: [
            runSubagent({ prompt: "CHILD-NEVER: a", model_id: "second-model" }),
            runSubagent({ prompt: "CHILD-NEVER: b", agent_id: "nobody_here" }),
            runSubagent({ prompt: "CHILD-NEVER: c", provider: TEST_PROVIDER, model_id: "no-such-model" }),
            runSubagent({ prompt: "CHILD-NEVER: d", agent_id: "Bad Id" }),
          ],
        },
        { text: "done" },
      ],
      "CHILD-NEVER": [],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("PARENT-REFUSED: delegate badly", { approve: allow }));
    const outputs = messages.flatMap((m) => (isModel(m, "tool_call_output") && m.origin === undefined ? [m.payload] : []));
    expect(outputs.map((o) => o.stop_reason)).toEqual(["failed", "failed", "failed", "failed"]);
    const byId = (i: number) => outputs.find((o) => o.tool_call_id === messages.flatMap((m) => (isModel(m, "tool_call") ? [m.payload.tool_call_id] : []))[i])?.output ?? "";
    expect(byId(0)).toContain("`model_id` and `provider` go together");
    expect(byId(1)).toContain('there is no agent "nobody_here"');
    expect(byId(2)).toContain("The subagent could not start:");
    expect(byId(2)).toContain("no-such-model");
    expect(byId(3)).toContain("invalid agent id");
    expect(conv.requests("CHILD-NEVER")).toEqual([]);
    expect(conv.errors).toEqual([]);
    await session.dispose();
  });
});
