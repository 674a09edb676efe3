// Time travel and fork from any event over HTTP: GET S/state?at= answers the state after that
// event (what `penguin inspect --at` prints), by count or by NNN:LLLLLL, and says 400 for a
// position that is not one; POST S/fork {at} starts a new session from the state at any
// event, even right after a tool call, and the fork's next task passes the pairing check.
// The body's `state` is the fold at that event as plain JSON, exactly what the SDK's
// `agent.sessionState()` answers for the same session and event.
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("time travel over HTTP", () => {
  it("answers the state at any event, and forks from one in the middle of a turn", async () => {
    h = await startHarness({
      script: [
        { text: "Let me read it.", toolCalls: [{ name: "read_file", id: "call_tt0001", arguments: { file_path: "notes.txt" } }] },
        { text: "It says hello." },
        { text: "Forked and carrying on." },
      ],
      app: { sandbox: { enabled: false } },
    });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${h.workspace}/notes.txt`, "hello\n");
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("what does notes.txt say?"));
    await untilRunsEnded(sse, 1);

    const end = await c.get(`/api/sessions/${sid}/state`);
    expect(end.status).toBe(200);
    const records: number = end.body.records;
    expect(end.body.at.n).toBe(records);

    // Walk back to the record of the tool call: its output has not arrived there.
    let callAt: number | undefined;
    for (let n = 1; n <= records && callAt === undefined; n++) {
      const s = await c.get(`/api/sessions/${sid}/state?at=${n}`);
      expect(s.status).toBe(200);
      if (JSON.stringify(s.body.openToolCalls).includes("call_tt0001")) callAt = n;
    }
    expect(callAt).toBeDefined();
    const byPosition = await c.get(`/api/sessions/${sid}/state?at=${encodeURIComponent((await c.get(`/api/sessions/${sid}/state?at=${callAt}`)).body.at.position)}`);
    expect(byPosition.body.at.n).toBe(callAt);
    expect((await c.get(`/api/sessions/${sid}/state?at=nope`)).status).toBe(400);

    const forked = await c.post(`/api/sessions/${sid}/fork`, { at: callAt });
    expect(forked.status).toBe(201);
    const fsse = await openStream(c, forked.body.id);
    expect((await c.post(`/api/sessions/${forked.body.id}/tasks`, text("go on"))).status).toBe(202);
    await untilRunsEnded(fsse, 1);
    expect(h.kit.violations).toEqual([]);
    expect((await c.post(`/api/sessions/${sid}/fork`, { at: 2, position: { fileIndex: 1, line: 3 } })).status).toBe(400);
  });

  it("answers as `state` what agent.sessionState() answers for the same event, as plain JSON", async () => {
    h = await startHarness({
      script: [{ text: "Reading.", toolCalls: [{ name: "read_file", id: "call_tt0002", arguments: { file_path: "notes.txt" } }] }, { text: "It says hello." }],
      app: { sandbox: { enabled: false } },
    });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${h.workspace}/notes.txt`, "hello\n");
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("what does notes.txt say?"));
    await untilRunsEnded(sse, 1);

    const agent = await createAgent({ root: h.root, env: {} });
    const records: number = (await c.get(`/api/sessions/${sid}/state`)).body.records;
    let withOpenOutputs = 0;
    for (let n = 1; n <= records; n++) {
      const sdk = await agent.sessionState({ sessionId: sid, at: n });
      const json = JSON.stringify(sdk);
      expect(JSON.parse(json), `round trip at ${n}`).toEqual(sdk);
      expect(json).not.toContain('"size":');
      const body = (await c.get(`/api/sessions/${sid}/state?at=${n}`)).body;
      expect(body.state, `state at ${n}`).toEqual(JSON.parse(JSON.stringify(sdk.state)));
      if (Object.keys(sdk.state.outputs).length > 0) withOpenOutputs += 1;
    }
    // The tool output between its call's request and the next commit is in the fold's outputs map.
    expect(withOpenOutputs).toBeGreaterThan(0);
    expect((await agent.sessionState({ sessionId: sid })).state.history.length).toBeGreaterThan(0);
  });
});
