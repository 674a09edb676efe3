// Goal mode: rounds of the same session until the model marks GOAL.yaml complete or blocked,
// the budget is spent (one wrap-up round, then budget_limited) or the run is aborted; the
// goal ends with a goal_finished event in the stream and the trace.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { parseBudget } from "../../src/goal/budget.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const goalFileOf = (r: RecordedRequest) => {
  const text = r.messages.map((m) => m.text ?? "").join("\n");
  const m = /goal_file: (\S+)/.exec(text);
  if (!m) throw new Error("no goal_file in request");
  return m[1]!;
};
const setStatus = (status: string): ScriptStep => (r) => ({
  toolCalls: [{ name: "write_file", arguments: { file_path: goalFileOf(r), content: `objective: the objective\nstatus: ${status}\n` } }],
  usage: { input: 300, output: 20 },
});
const finished = (ms: Awaited<ReturnType<typeof collect>>) => ms.find((m) => m.type === "event_msg" && m.payload.type === "goal_finished")?.payload;

describe("goal mode", () => {
  it("runs rounds until the model marks the goal complete", async () => {
    h = await startHarness({
      script: [
        { text: "Round one: made a plan.", usage: { input: 200, cached: 50, output: 10 } },
        setStatus("complete"),
        { text: "All done, tests pass.", usage: { input: 400, output: 10 } },
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("make the tests pass", { approve: allow, goal: { budget: "500k" } }));
    expect(finished(messages)).toEqual({ type: "goal_finished", outcome: "complete", rounds: 2, tokens_used: 160 + 320 + 410 });
    const first = h.kit.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.text ?? "");
    expect(first[0]).toMatch(/^\[goal\]\nround: 1\ngoal_file: .*GOAL\.yaml\nbudget: 500000 tokens/);
    expect(first[1]).toBe("make the tests pass");
    const second = h.kit.requests[1]!.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");
    expect(second.at(-2)).toMatch(/^\[goal\]\nround: 2/);
    expect(second.at(-1)).toBe("Continue working on the objective:\nmake the tests pass");
    expect(readFileSync(goalFileOf(h.kit.requests[0]!), "utf8")).toContain("status: complete");
    expect(traceOf(session.tracePath).some((m) => m.type === "event_msg" && m.payload.type === "goal_finished")).toBe(true);
    await session.dispose();
  });

  it("stops as blocked when the model says so", async () => {
    h = await startHarness({ script: [setStatus("blocked"), { text: "Blocked: need credentials." }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("deploy it", { approve: allow, goal: {} }));
    expect(finished(messages)).toMatchObject({ outcome: "blocked", rounds: 1 });
    await session.dispose();
  });

  it("grants one wrap-up round when the budget is spent, then ends budget_limited", async () => {
    h = await startHarness({ script: [{ text: "working", usage: { input: 900, output: 100 } }, { text: "wrapping up", usage: { input: 900, output: 100 } }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("big job", { approve: allow, goal: { budget: 500 } }));
    expect(finished(messages)).toMatchObject({ outcome: "budget_limited", rounds: 2, tokens_used: 2000 });
    const wrap = h.kit.requests[1]!.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");
    expect(wrap.some((t) => t.includes("this is the last round"))).toBe(true);
    expect(h.kit.requests).toHaveLength(2);
    await session.dispose();
  });

  it("ends aborted when a round is interrupted, leaving the goal file active", async () => {
    h = await startHarness({ script: [{ text: "a long round that hangs", chunkSize: 2, fault: { kind: "hang", afterEvents: 8 } }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const controller = new AbortController();
    const messages = await collect(session.run("long task", { approve: allow, signal: controller.signal, goal: {} }), (m) => {
      if (m.type === "model_msg" && m.payload.type === "partial_text") controller.abort();
    });
    expect(finished(messages)).toMatchObject({ outcome: "aborted", rounds: 1 });
    expect(readFileSync(goalFileOf(h.kit.requests[0]!), "utf8")).toContain("status: active");
    await session.dispose();
  });

  it("parses budgets", () => {
    expect(["500k", "2m", "1.5k", 1200, "-1", undefined, "x", "0", "-5", "3g"].map(parseBudget)).toEqual([500000, 2000000, 1500, 1200, -1, -1, undefined, undefined, undefined, undefined]);
  });
});
