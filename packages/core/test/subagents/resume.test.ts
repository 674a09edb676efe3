// A resumed parent keeps its `subagent` pointers and can spawn again; a resumed child is
// still a child (its source is in its trace), so it still has no subagent tools.
import { afterEach, describe, expect, it } from "vitest";
import { isEvent } from "@penguin/omnimessage";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { routeConversations, runSubagent, subagentIds, toolResults } from "./helpers/conversations.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function pointersOf(file: string): string[] {
  return traceOf(file).flatMap((m) => (isEvent(m, "subagent") ? [m.payload.session_id] : []));
}

describe("subagents across resume", () => {
  it("a resumed parent still has its pointer and spawns again; a resumed child has no subagent tools", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, {
      "PARENT-RESUME": [
        { toolCalls: [runSubagent({ prompt: "CHILD-FIRST: say one" })] },
        { text: "first done" },
        { toolCalls: [runSubagent({ prompt: "CHILD-SECOND: say two" })] },
        { text: "second done" },
      ],
      "CHILD-FIRST": [{ text: "one" }, { text: "one again" }],
      "CHILD-SECOND": [{ text: "two" }],
    });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("PARENT-RESUME: delegate", { approve: allow }));
    const trace = first.tracePath;
    await first.dispose();
    const [firstChild = ""] = subagentIds(conv.requests("PARENT-RESUME")[1]!);
    expect(pointersOf(trace)).toEqual([firstChild]);

    const resumed = await h.agent.resumeSession({ sessionId: first.id });
    expect(resumed.tracePath).toBe(trace);
    await collect(resumed.run("delegate again", { approve: allow }));
    const again = conv.requests("PARENT-RESUME")[3]!;
    // The replayed history still carries the first child's answer; the new one follows.
    expect(toolResults(again)[0]).toMatch(/status: completed; turns: 1; tokens: \d+\]\none$/);
    expect(toolResults(again).at(-1)).toMatch(/status: completed; turns: 1; tokens: \d+\]\ntwo$/);
    const secondChild = subagentIds(again).at(-1) ?? "";
    expect(secondChild).not.toBe(firstChild);
    expect(pointersOf(trace)).toEqual([firstChild, secondChild]);
    for (const name of ["run_subagent", "input_subagent", "kill_subagent"]) expect(again.toolNames).toContain(name);
    const secondTrace = traceOf(sessionTraceFiles(h.agent.paths, secondChild)[0]!.file);
    expect(secondTrace[0]).toMatchObject({ type: "session_meta", payload: { session_id: secondChild, source: "subagent" } });
    await resumed.dispose();

    // The first child resumed on its own: still a subagent, still without subagent tools.
    const child = await h.agent.resumeSession({ sessionId: firstChild });
    await collect(child.run("CHILD-FIRST: again", { approve: allow }));
    const childAgain = conv.requests("CHILD-FIRST")[1]!;
    expect(childAgain.toolNames).toContain("exec_command");
    expect(childAgain.toolNames).not.toContain("run_subagent");
    expect(conv.errors).toEqual([]);
    expect(h.kit.violations).toEqual([]);
    await child.dispose();
  });
});
