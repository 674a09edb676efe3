// Forks and goals through the HTTP API: POST S/fork copies a session after a completed task
// into a new, indexed session titled "<title> (n)" (409 while running or at a bad position);
// a task posted with `goal` runs rounds until the agent completes it, with goal_* server
// events and GET S/goal reporting the indexed state.
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, isServerEvent } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const goalFile = (r: RecordedRequest) => /goal_file: (\S+)/.exec(r.messages.map((m) => m.text ?? "").join("\n"))![1]!;
const complete: ScriptStep = (r) => ({ toolCalls: [{ name: "write_file", arguments: { file_path: goalFile(r), content: "objective: x\nstatus: complete\n" } }] });

describe("fork", () => {
  it("copies a finished session into a new indexed one titled with a fork number", async () => {
    h = await startHarness({ script: [{ text: "first answer" }, { text: "forked answer" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("hello"));
    await untilRunsEnded(sse, 1);
    await c.patch(`/api/sessions/${sid}`, { title: "Greeting" });

    const forked = await c.post(`/api/sessions/${sid}/fork`, {});
    expect(forked.status).toBe(201);
    expect(forked.body.id).not.toBe(sid);
    expect(forked.body.title).toBe("Greeting (1)");
    const again = await c.post(`/api/sessions/${sid}/fork`, {});
    expect(again.body.title).toBe("Greeting (2)");

    const fsse = await openStream(c, forked.body.id);
    expect((await c.post(`/api/sessions/${forked.body.id}/tasks`, text("and then?"))).status).toBe(202);
    await untilRunsEnded(fsse, 1);
    const sent = h.kit.requests.at(-1)!.messages.filter((m) => m.role === "user").map((m) => m.text);
    expect(sent).toEqual(["hello", "and then?"]);
    const bad = await c.post(`/api/sessions/${sid}/fork`, { position: { fileIndex: 1, line: 1 } });
    expect(bad.status).toBe(409);
    expect(bad.body.error.code).toBe("cannot_fork");
    await sse.close();
    await fsse.close();
  });
});

describe("goal", () => {
  it("runs a goal to completion with goal events and an indexed state", async () => {
    h = await startHarness({ script: [{ text: "round one" }, complete, { text: "done" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    expect((await c.get(`/api/sessions/${sid}/goal`)).status).toBe(404);
    const sse = await openStream(c, sid);
    const bad = await c.post(`/api/sessions/${sid}/tasks`, { ...text("x"), goal: { budget: "lots" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toMatch(/goal/);
    expect((await c.post(`/api/sessions/${sid}/tasks`, { ...text("ship it"), goal: { budget: "200k" } })).status).toBe(202);
    const started = dataOf(await untilServerEvent(sse, "goal_started"));
    expect(started).toMatchObject({ objective: "ship it", budget: 200000 });
    const finished = dataOf(await untilServerEvent(sse, "goal_finished"));
    expect(finished).toMatchObject({ outcome: "complete", rounds: 2 });
    await untilRunsEnded(sse, 1);
    const rounds = sse.events.filter((e) => isServerEvent(e, "goal_round")).map(dataOf);
    expect(rounds.map((r) => r.round)).toEqual([1, 2]);
    expect(rounds[0].used).toBe(0);
    expect(rounds[1].used).toBeGreaterThan(0);
    const goal = await c.get(`/api/sessions/${sid}/goal`);
    expect(goal.body.goal).toMatchObject({ objective: "ship it", status: "complete", budget: 200000, rounds: 2 });
    expect(goal.body.goal.used).toBeGreaterThan(0);
    await sse.close();
  });
});
