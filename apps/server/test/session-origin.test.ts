// Where a session came from, in the session API: a fork made at an event answers, lists and
// reads with `forkedFrom` {sessionId, at}; a replay of a recorded session (run through the
// SDK into the same data root, as `penguin replay` does) is listed with the person's sessions
// with `replayOf` naming the recording; a plain session has neither.
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "@penguin/core";
import { eventually, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const LIST = "/api/projects/default_project/agents/default_agent/sessions";

describe("session origins", () => {
  it("marks forks with their origin event and replays with their recording", async () => {
    h = await startHarness({ script: [{ text: "Hello there." }], app: { sandbox: { enabled: false }, projectionsPollMs: 50 } });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("say hello"));
    await untilRunsEnded(sse, 1);

    const at = (await c.get(`/api/sessions/${sid}/state?at=2`)).body.at.position as string;
    const forked = await c.post(`/api/sessions/${sid}/fork`, { at: 2 });
    expect(forked.status).toBe(201);
    expect(forked.body.forkedFrom).toEqual({ sessionId: sid, at });
    expect(forked.body.replayOf).toBeNull();
    expect((await c.get(`/api/sessions/${forked.body.id}`)).body.forkedFrom).toEqual({ sessionId: sid, at });

    const agent = await createAgent({ root: h.root, env: {} });
    const report = await agent.replay({ sessionId: sid, tools: "recorded" });
    expect(report.replayOf).toBe(sid);

    let listed: { id: string; forkedFrom: unknown; replayOf: unknown }[] = [];
    await eventually(async () => {
      listed = (await c.get(LIST)).body.sessions;
      return listed.some((s) => s.id === report.sessionId && s.replayOf === sid);
    }, "the replay to be listed with its recording");
    const byId = new Map(listed.map((s) => [s.id, s]));
    expect(byId.get(forked.body.id)?.forkedFrom).toEqual({ sessionId: sid, at });
    expect(byId.get(report.sessionId)?.forkedFrom).toBeNull();
    expect(byId.get(sid)).toMatchObject({ forkedFrom: null, replayOf: null });
    expect((await c.get(`/api/sessions/${report.sessionId}`)).body.replayOf).toBe(sid);
  });
});
