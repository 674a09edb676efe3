// The limits: at most 8 live children per session (a 9th spawn while all 8 run is a failed
// output; with idle children the least recently used one is released instead), and depth 1
// (a child has no subagent tools).
import { afterEach, describe, expect, it } from "vitest";
import { isModel } from "@penguin/omnimessage";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { routeConversations, runSubagent, subagentIds, toolResults, type Turn } from "./helpers/conversations.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("subagent caps", () => {
  it("a 9th child while 8 are running is refused with a failed output", async () => {
    h = await startHarness();
    const spawns = Array.from({ length: 9 }, (_, i) =>
      runSubagent({ prompt: `CHILD-HANG: job ${i}`, run_in_background: true, description: `job ${i}` }),
    );
    const conv = routeConversations(h.kit, {
      "PARENT-CAP": [{ toolCalls: spawns }, { text: "eight started" }],
      "CHILD-HANG": Array.from({ length: 9 }, (): Turn => ({ text: "never finishes", fault: { kind: "hang" } })),
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("PARENT-CAP: start nine jobs", { approve: allow }));

    const outputs = messages.flatMap((m) => (isModel(m, "tool_call_output") && m.origin === undefined ? [m.payload] : []));
    expect(outputs).toHaveLength(9);
    const refused = outputs.filter((o) => o.stop_reason === "failed");
    expect(refused).toHaveLength(1);
    expect(refused[0]?.output).toContain("Too many subagents: the limit is 8 per session and all of them are running");
    expect(outputs.filter((o) => o.output.includes("started in the background"))).toHaveLength(8);
    expect(new Set(subagentIds(conv.requests("PARENT-CAP")[1]!)).size).toBe(8);
    await h.kit.waitForRequests(1 + 8);
    expect(conv.requests("CHILD-HANG")).toHaveLength(8);
    await session.dispose();
    expect(conv.errors).toEqual([]);
  });

  it("with 8 idle children a new one releases the least recently used", async () => {
    h = await startHarness();
    const firstEight = Array.from({ length: 8 }, (_, i) => runSubagent({ prompt: `CHILD-QUICK-${i}: answer`, description: `quick ${i}` }));
    let earlier: string[] = [];
    const conv = routeConversations(h.kit, {
      "PARENT-ROOM": [
        { toolCalls: firstEight },
        (r) => {
          earlier = subagentIds(r);
          return { toolCalls: [runSubagent({ prompt: "CHILD-NINTH: answer", description: "one more" })] };
        },
        () => ({
          toolCalls: earlier.map((id) => ({ name: "input_subagent", arguments: { subagent_id: id, description: "check" } })),
        }),
        { text: "done" },
      ],
      ...Object.fromEntries(Array.from({ length: 8 }, (_, i): [string, Turn[]] => [`CHILD-QUICK-${i}`, [{ text: `answer ${i}` }]])),
      "CHILD-NINTH": [{ text: "ninth answer" }],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-ROOM: many quick jobs", { approve: allow }));
    const requests = conv.requests("PARENT-ROOM");
    expect(earlier).toHaveLength(8);
    expect(toolResults(requests[2]!).at(-1)).toMatch(/status: completed; turns: 1; tokens: \d+\]\nninth answer$/);
    const probes = toolResults(requests[3]!).slice(-8);
    const released = probes.filter((p) => p.includes("released to make room for a new subagent (limit 8 per session)"));
    expect(released).toHaveLength(1);
    // The others are still alive and answer with their last task.
    expect(probes.filter((p) => /status: completed; turns: 1; tokens: \d+\]\nanswer \d$/.test(p))).toHaveLength(7);
    expect(conv.errors).toEqual([]);
    await session.dispose();
  });

  it("depth is capped at 1: a child's tool list has no subagent tools", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, {
      "PARENT-DEPTH": [{ toolCalls: [runSubagent({ prompt: "CHILD-DEEP: try to delegate" })] }, { text: "done" }],
      "CHILD-DEEP": [
        { toolCalls: [runSubagent({ prompt: "GRANDCHILD: never" })] },
        (r) => ({ text: toolResults(r).at(-1) ?? "" }),
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-DEPTH: go", { approve: allow }));
    const child = conv.requests("CHILD-DEEP");
    expect(child[0]!.toolNames).toContain("exec_command");
    for (const name of ["run_subagent", "input_subagent", "kill_subagent"]) {
      expect(child[0]!.toolNames).not.toContain(name);
      expect(conv.requests("PARENT-DEPTH")[0]!.toolNames).toContain(name);
    }
    // A call the model makes anyway is an unknown tool for the child.
    expect(toolResults(child[1]!).at(-1)).toContain("Unknown tool: run_subagent");
    expect(conv.requests("GRANDCHILD")).toEqual([]);
    expect(conv.errors).toEqual([]);
    await session.dispose();
  });
});
