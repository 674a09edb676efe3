// The session runtime through the HTTP API: one task at a time (409, or queued as a
// follow-up that runs later and can be recalled), approvals parked until answered and
// re-reading the approval mode for every decision, abort denying what is pending, steering,
// titles, idle eviction and resume, and deletion.
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startHarness, type Harness } from "./helpers/harness.js";
import { enqueueSmart, lastUserText } from "./helpers/model.js";
import { newSession, openStream, runsEnded, taskStates, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, isServerEvent, messagesOf, seqOf, type SseEvent } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const writeCall = (file: string, content = "x") => ({ name: "write_file", arguments: { file_path: file, content } });

describe("one task per session", () => {
  it("answers 409 task_in_progress, queues with queueIfBusy, runs the follow-up after, and recalls on request", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("a.txt")] }, { text: "first done" }, { text: "follow-up done" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const sse = await openStream(c, sid);
    expect((await c.post(`/api/sessions/${sid}/tasks`, text("first"))).status).toBe(202);
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));

    const busy = await c.post(`/api/sessions/${sid}/tasks`, text("second"));
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("task_in_progress");

    const queued = await c.post(`/api/sessions/${sid}/tasks`, { ...text("third"), queueIfBusy: true });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: "queued" });
    const recallMe = await c.post(`/api/sessions/${sid}/tasks`, { ...text("never"), queueIfBusy: true });
    const recalled = await c.del(`/api/sessions/${sid}/follow-ups/${recallMe.body.followUpId}`);
    expect(recalled.body).toEqual({ input: [{ type: "text", text: "never" }] });
    expect((await c.del(`/api/sessions/${sid}/follow-ups/${recallMe.body.followUpId}`)).status).toBe(404);
    const state = await sse.until((e) => isServerEvent(e, "task_state") && e.id !== undefined && dataOf(e).queued === 1 && dataOf(e).pendingFollowUps[0]?.input[0]?.text === "third");
    expect(dataOf(state).state).toBe("running");

    expect((await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "allow" })).status).toBe(204);
    await untilRunsEnded(sse, 2);
    const userTexts = messagesOf(sse.events).filter((m) => m.payload?.type === "text").map((m) => `${m.payload.role}:${m.payload.text}`);
    expect(userTexts).toEqual(["user:first", "assistant:first done", "user:third", "assistant:follow-up done"]);
    expect(h.kit.requests.map(lastUserText)).toEqual(["first", "first", "third"]);
    expect(existsSync(`${h.workspace}/a.txt`)).toBe(true);
    await sse.close();
  });
});

describe("approvals", () => {
  it("parks always-ask calls until answered, re-reading the session's mode for each decision", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("one.txt"), writeCall("two.txt")] }, { text: "both written" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("write two files"));
    const first = dataOf(await untilServerEvent(sse, "approval_request"));
    expect(first.toolCall.name).toBe("write_file");
    expect((await c.get(`/api/sessions/${sid}`)).body.pending).toHaveLength(1);

    // A client that reconnects is told again what is pending.
    const late = await openStream(c, sid);
    const replayed = await late.until((e) => isServerEvent(e, "approval_request"));
    expect(replayed.id).toBeUndefined();
    expect(dataOf(replayed).toolCallId).toBe(first.toolCallId);
    await late.close();

    expect((await c.patch(`/api/sessions/${sid}`, { approvalMode: "allow-all" })).body.approvalMode).toBe("allow-all");
    expect((await c.post(`/api/sessions/${sid}/approvals/${first.toolCallId}`, { decision: "allow" })).status).toBe(204);
    expect((await c.post(`/api/sessions/${sid}/approvals/${first.toolCallId}`, { decision: "allow" })).status).toBe(404);
    await untilRunsEnded(sse, 1);
    expect(sse.events.filter((e) => isServerEvent(e, "approval_request"))).toHaveLength(1);
    const decisions = messagesOf(sse.events).filter((m) => m.payload?.type === "approval_decision").map((m) => m.payload.decision);
    expect(decisions).toEqual(["allow", "allow"]);
    expect(existsSync(`${h.workspace}/two.txt`)).toBe(true);
    await sse.close();
  });

  it("denies what is pending when the task is aborted, and hands queued follow-ups back", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("never.txt")] }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("go"));
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));
    await c.post(`/api/sessions/${sid}/tasks`, { ...text("later"), queueIfBusy: true });
    const aborted = await c.post(`/api/sessions/${sid}/abort`);
    expect(aborted.status).toBe(202);
    expect(aborted.body.recalled.map((r: any) => r.input[0].text)).toEqual(["later"]);
    const resolved = dataOf(await untilServerEvent(sse, "approval_resolved"));
    expect(resolved).toMatchObject({ toolCallId: asked.toolCallId, decision: "deny" });
    await untilRunsEnded(sse, 1);
    expect(messagesOf(sse.events).some((m) => m.payload?.type === "abort")).toBe(true);
    expect(existsSync(`${h.workspace}/never.txt`)).toBe(false);
    expect((await c.post(`/api/sessions/${sid}/abort`)).status).toBe(204);
    expect(h.kit.requests).toHaveLength(1);
    await sse.close();
  });
});

describe("steering", () => {
  it("answers 409 not_running when idle, and delivers steering to the running task", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("s.txt")] }, { text: "steered" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const idle = await c.post(`/api/sessions/${sid}/steer`, { text: "faster" });
    expect(idle.status).toBe(409);
    expect(idle.body.error.code).toBe("not_running");
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("start"));
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));
    const steered = await c.post(`/api/sessions/${sid}/steer`, { text: "also say hi" });
    expect(steered.status).toBe(202);
    await sse.until((e) => isServerEvent(e, "task_state") && dataOf(e).pendingSteering.length === 1);
    await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "allow" });
    await untilRunsEnded(sse, 1);
    const steering = messagesOf(sse.events).find((m) => m.payload?.type === "text" && m.payload.text.includes("[user_steering]"));
    expect(steering?.payload.text).toContain("also say hi");
    expect(h.kit.requests[1]?.messages.some((m) => (m.text ?? "").includes("also say hi"))).toBe(true);
    await sse.close();
  });
});

describe("steering recall", () => {
  it("takes back steering not yet delivered, refuses once delivered, and lists what is pending", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("r.txt")] }, { text: "steered" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("start"));
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));
    const keep = await c.post(`/api/sessions/${sid}/steer`, { text: "keep this one" });
    const drop = await c.post(`/api/sessions/${sid}/steer`, { text: "never mind this" });
    expect(keep.body).toEqual({ id: expect.stringMatching(/^st_/), text: "keep this one" });
    const recalled = await c.del(`/api/sessions/${sid}/steer/${drop.body.id}`);
    expect(recalled.status).toBe(200);
    expect(recalled.body).toEqual({ id: drop.body.id, text: "never mind this" });
    expect((await c.del(`/api/sessions/${sid}/steer/${drop.body.id}`)).status).toBe(404);
    const pending = await sse.until((e) => isServerEvent(e, "task_state") && e.id !== undefined && dataOf(e).pendingSteering.length === 1);
    expect(dataOf(pending).pendingSteering).toEqual([{ id: keep.body.id, text: "keep this one" }]);

    await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "allow" });
    await untilRunsEnded(sse, 1);
    const late = await c.del(`/api/sessions/${sid}/steer/${keep.body.id}`);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("already_delivered");
    const sent = h.kit.requests[1]?.messages.map((m) => m.text ?? "").join("\n") ?? "";
    expect(sent).toContain("keep this one");
    expect(sent).not.toContain("never mind this");
    expect(dataOf(sse.events.filter((e) => isServerEvent(e, "task_state")).at(-1)!).pendingSteering).toEqual([]);
    await sse.close();
  });
});

describe("titles", () => {
  it("names the session out of band after the first turn, never in the trace", async () => {
    h = await startHarness({ app: { generateTitles: true } });
    enqueueSmart(h.kit, 4, () => ({ text: "Here you go" }), "Greeting Exchange");
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("say hello please"));
    const titled = dataOf(await untilServerEvent(sse, "session_title"));
    expect(titled.title).toBe("Greeting Exchange");
    expect((await c.get(`/api/sessions/${sid}`)).body.title).toBe("Greeting Exchange");
    await eventually(() => runsEnded(sse.events) >= 1, "the run to end");
    const history = await c.get(`/api/sessions/${sid}/messages`);
    expect(JSON.stringify(history.body.messages)).not.toContain("Write a title");
    await sse.close();
  });

  it("falls back to the prompt when the title request fails", async () => {
    h = await startHarness({ app: { generateTitles: true } });
    h.kit.enqueue({ text: "answer" }, { fault: { kind: "http", status: 500 } });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("Plan the  quarterly report"));
    expect(dataOf(await untilServerEvent(sse, "session_title")).title).toBe("Plan the quarterly report");
    await sse.close();
  });
});

describe("idle eviction and resume", () => {
  it("unloads a session idle for 30 minutes and resumes it from its trace on the next task", async () => {
    h = await startHarness({ script: [{ text: "remember 42" }] });
    enqueueSmart(h.kit, 1, (r) => ({ text: r.messages.some((m) => m.text === "remember 42") ? "I still know 42" : "history lost" }));
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("keep 42 in mind"));
    await untilRunsEnded(sse, 1);
    expect(h.server.context.sessions.loadedCount).toBe(1);
    h.clock.advance(29 * 60 * 1000);
    h.ticker.advance(60_000);
    expect(await h.server.context.sessions.evictIdle()).toBe(0);
    h.clock.advance(2 * 60 * 1000);
    expect(await h.server.context.sessions.evictIdle()).toBe(1);
    expect(h.server.context.sessions.loadedCount).toBe(0);
    await c.post(`/api/sessions/${sid}/tasks`, text("what number?"));
    await untilRunsEnded(sse, 2);
    expect(messagesOf(sse.events).filter((m) => m.payload?.type === "text" && m.payload.role === "assistant").map((m) => m.payload.text)).toEqual(["remember 42", "I still know 42"]);
    await sse.close();
  });

  it("evicts on the ticker without any call from the test", async () => {
    h = await startHarness({ script: [{ text: "ok" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("hi"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    h.clock.advance(31 * 60 * 1000);
    h.ticker.advance(60_000);
    await eventually(() => h!.server.context.sessions.loadedCount === 0, "the ticker to evict");
  });
});

describe("deleting a session", () => {
  it("refuses while it runs, then moves its traces to the trash", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("d.txt")] }, { text: "done" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("go"));
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));
    expect((await c.del(`/api/sessions/${sid}`)).status).toBe(409);
    await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "deny" });
    await untilRunsEnded(sse, 1);
    const tracePath = (await c.get(`/api/sessions/${sid}`)).body.tracePath;
    expect(existsSync(tracePath)).toBe(true);
    expect((await c.del(`/api/sessions/${sid}`)).status).toBe(204);
    expect(existsSync(tracePath)).toBe(false);
    // Not destroyed: the trace is in the data root's trash (session-trash.test.ts restores it).
    expect((await c.get("/api/projects/default_project/trash")).body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([sid]);
    expect((await c.get(`/api/sessions/${sid}`)).status).toBe(404);
    expect(taskStates(sse.events)).toContain("running");
  });
});

describe("compaction", () => {
  it("compacts on request and refuses to compact twice in a row", async () => {
    h = await startHarness({ script: [{ text: "a long answer" }, { text: "<summary>we talked</summary>" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    expect((await c.post(`/api/sessions/${sid}/compact`)).body.error.code).toBe("nothing_to_compact");
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("talk"));
    await untilRunsEnded(sse, 1);
    expect((await c.post(`/api/sessions/${sid}/compact`)).status).toBe(202);
    await untilRunsEnded(sse, 2);
    expect(taskStates(sse.events)).toContain("compacting");
    const end = messagesOf(sse.events).find((m) => m.payload?.type === "compaction_end");
    expect(end?.payload.status).toBe("completed");
    expect((await c.post(`/api/sessions/${sid}/compact`)).body.error.code).toBe("already_compacted");
    await sse.close();
  });
});

describe("the replay ring after a run", () => {
  it("drops the finished run's partials when its client stayed connected; a reconnect from inside the run gets every record and server event after its id, in order", async () => {
    const answer = "partial-".repeat(20);
    h = await startHarness({ script: [{ text: answer, chunkSize: 8 }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("stream please"));
    await untilRunsEnded(sse, 1);
    const isPartialEvent = (e: SseEvent) => e.event === "message" && String(dataOf(e).payload?.type).startsWith("partial_");
    const partials = sse.events.filter(isPartialEvent);
    expect(partials.length).toBeGreaterThanOrEqual(20);
    const midway = partials[5]!.id!;
    const back = await openStream(c, sid, midway);
    const snapshot = await back.until((e) => e.id === undefined && isServerEvent(e, "task_state"));
    const replayed = back.events.slice(0, back.events.indexOf(snapshot));
    const durableOrServer = sse.events.filter((e) => e.id !== undefined && seqOf(e.id) > seqOf(midway) && !isPartialEvent(e));
    expect(replayed.map((e) => e.id)).toEqual(durableOrServer.map((e) => e.id));
    expect(replayed.map((e) => e.data)).toEqual(durableOrServer.map((e) => e.data));
    expect(messagesOf(replayed).filter((m) => m.payload?.type === "text" && m.payload.role === "assistant").map((m) => m.payload.text)).toEqual([answer]);
    expect(taskStates(replayed).at(-1)).toBe("idle");
    await back.close();
    await sse.close();
  });
});

describe("attachments", () => {
  it("stores an attached file in the scratchpad, names it in the prompt, and serves it back raw", async () => {
    h = await startHarness({ script: [{ text: "got it" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    const dataUrl = `data:text/plain;base64,${Buffer.from("attached body").toString("base64")}`;
    const posted = await c.post(`/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "read this" }, { type: "file", fileName: "../../notes.txt", dataUrl }] });
    expect(posted.status).toBe(202);
    await untilRunsEnded(sse, 1);
    const line = messagesOf(sse.events).find((m) => m.payload?.type === "text" && m.payload.text.startsWith("[attached file:"));
    const path: string = /\[attached file: (.*)\]/.exec(line?.payload.text ?? "")?.[1] ?? "";
    expect(path).toMatch(/scratchpad\/session-[^/]+\/uploads\/\d+-notes\.txt$/);
    expect(h.kit.requests[0]?.messages.some((m) => (m.text ?? "").includes(path))).toBe(true);
    const rel = path.slice(path.indexOf("/uploads/") + 1);
    const served = await c.raw("GET", `/api/sessions/${sid}/scratchpad/${rel}`);
    expect(await served.text()).toBe("attached body");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await c.raw("GET", `/api/sessions/${sid}/scratchpad/..%2F..%2Fweb.db`)).status).toBe(400);
    const tooMany = await c.post(`/api/sessions/${sid}/tasks`, { input: Array.from({ length: 21 }, () => ({ type: "file", fileName: "a.txt", dataUrl })) });
    expect(tooMany.status).toBe(400);
    await sse.close();
  });
});
