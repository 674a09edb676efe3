// Replaying goal runs and the host's settings, through the real engine against recordings
// the real engine made (testkit model, real tools, real trace files).
//
// Given a goal that completes, one that the model blocks, one the budget limits and one the
// user aborts, when each is replayed with the tools answered from the recording and with
// the tools run again, then the replay is identical, and a rerun writes the goal file of the
// replay's own scratchpad, never the recorded session's. Given a session whose approval mode
// and thinking level changed between tasks, when it is replayed, then the opening settings
// and every change come back at the same records.
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { goalFilePath } from "../../src/goal/goal-file.js";
import { sessionScratchpad } from "../../src/state/paths.js";
import { buildPlan } from "../../src/replay/plan.js";
import { loadRecording } from "../../src/replay/recording.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const goalFileOf = (r: RecordedRequest) => /goal_file: (\S+)/.exec(r.messages.map((m) => m.text ?? "").join("\n"))![1]!;
const setStatus = (status: string): ScriptStep => (r) => ({
  toolCalls: [{ name: "write_file", arguments: { file_path: goalFileOf(r), content: `objective: the objective\nstatus: ${status}\n` } }],
  usage: { input: 300, output: 20 },
});

async function replayBothWays(sessionId: string): Promise<string[]> {
  const out: string[] = [];
  for (const tools of ["recorded", "rerun"] as const) out.push(`${tools}: ${(await h!.agent.replay({ sessionId, tools })).summary}`);
  return out;
}

describe("replay of a goal run", () => {
  it("re-runs a goal the model completes in its second round, identical both ways", async () => {
    h = await startHarness({ script: [{ text: "Round one: a plan.", usage: { input: 200, output: 10 } }, setStatus("complete"), { text: "All done.", usage: { input: 400, output: 10 } }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace, approvalMode: "allow-all" });
    await collect(session.run("make the tests pass", { approve: allow, goal: { budget: "500k" } }));
    await session.dispose();
    // The recorded session's goal file moves on after the run; a replay must leave it alone.
    const recordedGoalFile = goalFilePath(sessionScratchpad(h.agent.paths, session.id));
    const before = "objective: moved on\nstatus: active\n";
    writeFileSync(recordedGoalFile, before);

    const plan = buildPlan(loadRecording({ paths: h.agent.paths }, session.id));
    const goal = plan.tasks[0];
    expect(plan.tasks).toHaveLength(1);
    expect(goal).toMatchObject({ kind: "goal", objective: "make the tests pass", budget: 500_000, outcome: "complete" });
    expect(goal?.kind === "goal" ? goal.rounds.map((r) => r.after?.includes("status: complete")) : []).toEqual([false, true]);

    expect(await replayBothWays(session.id)).toEqual(["recorded: identical", "rerun: identical"]);
    // The rerun's write_file went to the replay's own GOAL.yaml: the recorded one is untouched.
    expect(readFileSync(recordedGoalFile, "utf8")).toBe(before);
  });

  it("re-runs blocked, budget-limited and aborted goals identically", async () => {
    h = await startHarness({
      script: [
        setStatus("blocked"),
        { text: "Blocked: need credentials." },
        { text: "working", usage: { input: 900, output: 100 } },
        { text: "wrapping up", usage: { input: 900, output: 100 } },
        { text: "a long round that hangs", chunkSize: 2, fault: { kind: "hang", afterEvents: 8 } },
      ],
    });
    const blocked = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(blocked.run("deploy it", { approve: allow, goal: {} }));
    await blocked.dispose();
    const limited = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(limited.run("big job", { approve: allow, goal: { budget: 500 } }));
    await limited.dispose();
    const aborted = await h.agent.createSession({ workspaceDir: h.workspace });
    const controller = new AbortController();
    await collect(aborted.run("long task", { approve: allow, signal: controller.signal, goal: {} }), (m) => {
      if (m.type === "model_msg" && m.payload.type === "partial_text") controller.abort();
    });
    await aborted.dispose();

    const outcomes = [blocked, limited, aborted].map((s) => traceOf(s.tracePath).flatMap((m) => (m.type === "event_msg" && m.payload.type === "goal_finished" ? [m.payload.outcome] : [])));
    expect(outcomes).toEqual([["blocked"], ["budget_limited"], ["aborted"]]);
    for (const s of [blocked, limited, aborted]) expect({ session: s.id, verdicts: await replayBothWays(s.id) }).toEqual({ session: s.id, verdicts: ["recorded: identical", "rerun: identical"] });
  });
});

describe("replay of the host's settings", () => {
  it("writes the starting settings again and re-enacts each approval-mode and thinking-level change", async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace, approvalMode: "allow-all", thinkingLevel: "low" });
    await collect(session.run("first", { approve: allow }));
    session.setApprovalMode("read-only");
    session.thinkingLevel = "high";
    await collect(session.run("second", { approve: allow }));
    await collect(session.run("third", { approve: allow, thinkingLevel: "low" }));
    await session.dispose();
    const settings = traceOf(session.tracePath).flatMap((m) => (m.type === "event_msg" && m.payload.type === "settings_changed" ? [m.payload] : []));
    expect(settings).toEqual([
      { type: "settings_changed", approval_mode: "allow-all", thinking_level: "low" },
      { type: "settings_changed", approval_mode: "read-only" },
      { type: "settings_changed", thinking_level: "high" },
      { type: "settings_changed", thinking_level: "low" },
    ]);
    expect(await replayBothWays(session.id)).toEqual(["recorded: identical", "rerun: identical"]);
  });
});
