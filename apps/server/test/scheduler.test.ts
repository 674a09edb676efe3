// The scheduler on the injected clock and ticker (no real waiting): a new-session schedule
// fires when its slot comes, in a `schedule` session, as a `[scheduled_task]` user text from
// the server; slots missed while time jumped are counted, never back-filled; a broken file
// is recorded, not fatal; a schedule aimed at a busy session is queued once and runs after
// the current task. Users hear about it on /api/events.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { enqueueSmart, lastUserText } from "./helpers/model.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, isServerEvent, messagesOf, SseReader } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const A = "/api/projects/default_project/agents/default_agent";
const iso = (ms: number) => new Date(ms).toISOString();

function writeSchedule(root: string, name: string, body: string): void {
  const dir = agentPaths(root, "default_project", "default_agent").scheduleDir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.toml`), body);
}

async function userEvents(h: Harness, c: Awaited<ReturnType<Harness["admin"]>>): Promise<SseReader> {
  const res = await c.raw("GET", "/api/events");
  if (res.body === null) throw new Error("no event stream");
  return new SseReader(res.body);
}

describe("scheduler", () => {
  it("fires a new-session schedule on its slot, never back-fills, and records broken files", async () => {
    h = await startHarness();
    enqueueSmart(h.kit, 4, (r) => ({ text: `done: ${lastUserText(r).includes("[scheduled_task]") ? "scheduled" : "other"}` }));
    const c = await h.admin();
    const events = await userEvents(h, c);
    const t0 = h.clock.now();
    writeSchedule(h.root, "report", `enabled = true\nprompt = "Write the daily report"\nstart_at = "${iso(t0 + 10_000)}"\nperiod = "30m"\nworkspace = "${h.workspace}"\n`);
    writeSchedule(h.root, "broken", `enabled = true\nprompt = 42\n`);
    const scheduler = h.server.context.scheduler;

    expect(await scheduler.tick()).toEqual({ fired: [], queued: [], missed: [] });
    h.clock.advance(30_000);
    h.ticker.advance(30_000);
    const fired = dataOf(await untilServerEvent(events, "schedule_fired"));
    expect(fired).toMatchObject({ projectId: "default_project", agentId: "default_agent", name: "report", slot: t0 + 10_000 });
    const sessionId: string = fired.sessionId;
    await events.until((e) => isServerEvent(e, "session_state") && dataOf(e).sessionId === sessionId && dataOf(e).state === "idle");
    const history = (await c.get(`/api/sessions/${sessionId}/messages`)).body.messages;
    const prompt = history.find((m: any) => m.payload?.type === "text" && m.payload.role === "user");
    expect(history.filter((m: any) => m.payload?.type === "text" && m.payload.role === "assistant").map((m: any) => m.payload.text)).toEqual(["done: scheduled"]);
    expect(prompt.payload.sender).toBe("server");
    expect(prompt.payload.text).toMatch(/^\[scheduled_task\]\nname: report\nscheduled_for: .+\nperiod: 30m\n\nWrite the daily report\n\[\/scheduled_task\]$/);
    expect((await c.get(`${A}/sessions?category=schedule`)).body.sessions.map((s: any) => s.id)).toEqual([sessionId]);
    expect((await c.get(`${A}/sessions`)).body.sessions.map((s: any) => s.id)).not.toContain(sessionId);

    // Three hours pass at once: the newest slot runs, the five before it are missed.
    h.clock.advance(3 * 60 * 60 * 1000);
    const report = await scheduler.tick();
    expect(report.fired).toEqual(["default_project/default_agent/report"]);
    const listed = (await c.get(`${A}/schedules`)).body.schedules;
    expect(listed.find((s: any) => s.name === "report")).toMatchObject({ valid: true, missed: 5, lastFiredAt: h.clock.now(), nextAt: t0 + 10_000 + 7 * 30 * 60_000 });
    expect(listed.find((s: any) => s.name === "broken")).toMatchObject({ valid: false, invalidReason: "prompt is required text", enabled: true });
    expect(await scheduler.tick()).toEqual({ fired: [], queued: [], missed: [] });
    await events.close();
  });

  it("queues a run for a busy session once, and runs it after the current task", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "write_file", arguments: { file_path: "b.txt", content: "b" } }] }, { text: "first task done" }, { text: "scheduled run done" }] });
    const c = await h.admin();
    const events = await userEvents(h, c);
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("busy work"));
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));
    writeSchedule(h.root, "ping", `enabled = true\nprompt = "ping"\nstart_at = "${iso(h.clock.now() - 5_000)}"\nperiod = "5m"\nsession_id = "${sid}"\n`);
    const scheduler = h.server.context.scheduler;
    expect((await scheduler.tick()).queued).toEqual(["default_project/default_agent/ping"]);
    expect(dataOf(await untilServerEvent(events, "schedule_queued"))).toMatchObject({ name: "ping", sessionId: sid });
    h.clock.advance(5 * 60_000);
    expect((await scheduler.tick()).missed).toEqual(["default_project/default_agent/ping"]);

    await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "allow" });
    await untilRunsEnded(sse, 2);
    const texts = messagesOf(sse.events).filter((m) => m.payload?.type === "text").map((m) => `${m.payload.role}:${m.payload.sender ?? "human"}:${m.payload.text.split("\n")[0]}`);
    expect(texts).toEqual(["user:human:busy work", "assistant:human:first task done", "user:server:[scheduled_task]", "assistant:human:scheduled run done"]);
    expect(sse.events.some((e) => isServerEvent(e, "task_state") && dataOf(e).queued === 1)).toBe(true);
    await sse.close();
    await events.close();
  });

  it("records a run that cannot start (the named session is gone) without failing the tick", async () => {
    h = await startHarness();
    const c = await h.admin();
    writeSchedule(h.root, "orphan", `enabled = true\nprompt = "hi"\nstart_at = "${iso(h.clock.now() - 1_000)}"\nsession_id = "session-2026-01-01-00-00-00-0000abcd"\n`);
    expect(await h.server.context.scheduler.tick()).toEqual({ fired: [], queued: [], missed: [] });
    const [orphan] = (await c.get(`${A}/schedules`)).body.schedules;
    expect(orphan).toMatchObject({ name: "orphan", valid: true, lastFiredAt: null, nextAt: null });
    expect(orphan.lastError).toContain("does not exist");
  });
});
