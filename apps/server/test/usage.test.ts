// Usage: the usage projection turns traces into rows (requests, failures as error rows,
// subagents attributed to the main session but priced by their own model), and the usage API
// groups and buckets them and prices them at query time from the configured or preset prices.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, projectPaths, sessionDate, traceFilePath, writeProjectConfig } from "@penguin/core";
import { eventMessage, sessionMeta, subagentEvent, tokenUsage, type OmniMessage } from "@penguin/omnimessage";
import { modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const tokens = (cache_read: number, cache_write: number, output: number) => ({ cache_read, cache_write, output, total: cache_read + cache_write + output });

/** Writes a session's trace file as an engine would: its meta, then the given lines. */
function writeTrace(root: string, agentId: string, sessionId: string, provider: string, modelId: string, lines: OmniMessage[], source?: "subagent"): void {
  const file = traceFilePath(agentPaths(root, "default_project", agentId), sessionDate(sessionId), sessionId, 1);
  mkdirSync(dirname(file), { recursive: true });
  const meta = sessionMeta({ session_id: sessionId, provider, model_id: modelId, model_context_window: 1000, system_prompt: "", agent_state: "/x", workspace: "/y", ...(source !== undefined ? { source } : {}) }, { at: lines[0]?.timestamp });
  writeFileSync(file, [meta, ...lines].map((m) => `${JSON.stringify(m)}\n`).join(""));
}

describe("the usage projection", () => {
  it("records completed requests, keeps failures as error rows, and attributes subagents to the main session at their own model", async () => {
    h = await startHarness();
    const main = "session-2026-07-18-11-00-00-00000001";
    const child = "session-2026-07-18-11-00-00-0000c41d";
    const other = "session-2026-07-18-11-00-01-0000c41e";
    const at = { at: new Date(h.clock.now()).toISOString() };
    writeTrace(h.root, "helper_agent", child, "childprov", "child-model", [tokenUsage(tokens(0, 40, 4), tokens(0, 40, 4), at)], "subagent");
    writeTrace(h.root, "default_agent", other, "streamedprov", "streamed-model", [tokenUsage(tokens(1, 1, 1), tokens(1, 1, 1), at)], "subagent");
    writeTrace(h.root, "default_agent", main, "testkit", "scripted-model", [
      tokenUsage(tokens(10, 90, 5), tokens(10, 90, 5), at),
      eventMessage({ type: "request_end", status: "auth", error_message: "401 from testkit" }, at),
      eventMessage({ type: "request_end", status: "failed", error_message: "500", retry_in_ms: 2000, attempt: 1 }, at),
      eventMessage({ type: "request_end", status: "aborted" }, at),
      subagentEvent(child, at),
      subagentEvent(other, at),
    ]);

    const c = await h.admin();
    const bySession = (await c.get("/api/projects/default_project/usage?groupBy=session")).body;
    expect(bySession.rows).toEqual([expect.objectContaining({ key: main, requests: 5, failures: 2, cacheRead: 11, cacheWrite: 131, output: 10, total: 152 })]);
    const rows = await h.server.context.projections.read((db) =>
      db.selectFrom("usage_requests").select(["session_id", "provider", "model_id", "cache_read", "cache_write", "output", "total", "status"]).orderBy("session_id").orderBy("line").execute(),
    );
    expect(rows).toEqual([
      { session_id: main, provider: "testkit", model_id: "scripted-model", cache_read: 10, cache_write: 90, output: 5, total: 105, status: "completed" },
      { session_id: main, provider: "testkit", model_id: "scripted-model", cache_read: 0, cache_write: 0, output: 0, total: 0, status: "auth" },
      { session_id: main, provider: "testkit", model_id: "scripted-model", cache_read: 0, cache_write: 0, output: 0, total: 0, status: "failed" },
      { session_id: child, provider: "childprov", model_id: "child-model", cache_read: 0, cache_write: 40, output: 4, total: 44, status: "completed" },
      { session_id: other, provider: "streamedprov", model_id: "streamed-model", cache_read: 1, cache_write: 1, output: 1, total: 3, status: "completed" },
    ]);
    const errors = (await c.get("/api/projects/default_project/usage/errors")).body;
    expect(errors.items.map((e: any) => ({ kind: e.kind, code: e.code, status: e.status, message: e.message, sessionId: e.sessionId }))).toEqual([
      { kind: "unexpected", code: "failed", status: "failed", message: "500", sessionId: main },
      { kind: "expected", code: "auth", status: "auth", message: "401 from testkit", sessionId: main },
    ]);
  });

  it("records the rows of a real run through the API, failures included", async () => {
    h = await startHarness({ script: [{ text: "fine", usage: { input: 300, cached: 100, output: 7 } }, { fault: { kind: "http", status: 401, body: "bad key" } }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("one"));
    await untilRunsEnded(sse, 1);
    await c.post(`/api/sessions/${sid}/tasks`, text("two"));
    await untilRunsEnded(sse, 2);
    await sse.close();
    const usage = await c.get("/api/projects/default_project/usage?groupBy=session");
    expect(usage.body.rows).toEqual([expect.objectContaining({ key: sid, requests: 2, failures: 1, cacheRead: 100, cacheWrite: 200, output: 7 })]);
    const errors = await c.get("/api/projects/default_project/usage/errors");
    expect(errors.body.total).toBe(1);
    expect(errors.body.items[0]).toMatchObject({ sessionId: sid, kind: "expected", status: "auth" });
  });
});

describe("the usage API", () => {
  it("groups by date in every granularity, by agent, model and session, and prices at query time", async () => {
    h = await startHarness();
    const config = projectPaths(h.root, "default_project").projectConfig;
    const priced = modelEntry(h.kit, { pricing: { unit: "usd_per_mtok", cache_read: 1, cache_write: 10, output: 100 } });
    writeProjectConfig(config, { default_model: { provider: priced.provider, model_id: priced.model_id }, models: [priced] });
    const at = (y: number, mo: number, d: number, hh: number, mm: number) => new Date(y, mo - 1, d, hh, mm).getTime();
    const usage = (ts: number, cr: number, cw: number, out: number) => tokenUsage(tokens(cr, cw, out), tokens(cr, cw, out), { at: new Date(ts).toISOString() });
    const s1 = "session-2026-07-13-09-00-00-000000a1";
    const s2 = "session-2026-07-19-23-00-00-000000a2";
    const s3 = "session-2026-07-20-00-00-00-000000a3";
    writeTrace(h.root, "default_agent", s1, "testkit", "scripted-model", [
      usage(at(2026, 7, 13, 9, 15), 1_000_000, 0, 0), // Monday
      usage(at(2026, 7, 13, 9, 45), 0, 1_000_000, 0),
      eventMessage({ type: "request_end", status: "timeout" }, { at: new Date(at(2026, 8, 1, 12, 0)).toISOString() }),
    ]);
    writeTrace(h.root, "writer", s2, "deepseek", "deepseek-v4-flash", [usage(at(2026, 7, 19, 23, 59), 0, 1_000_000, 1_000_000)]); // Sunday, preset prices
    writeTrace(h.root, "writer", s3, "mystery", "unpriced", [usage(at(2026, 7, 20, 0, 1), 0, 500, 0)]); // next Monday, no price
    const c = await h.admin();
    const get = async (q: string) => (await c.get(`/api/projects/default_project/usage?${q}`)).body;

    const byDay = await get("groupBy=date&granularity=day");
    expect(byDay.rows.map((r: any) => [r.key, r.requests, Number(r.cost.toFixed(6)), r.hasUncosted])).toEqual([
      ["2026-07-13", 2, 11, false],
      ["2026-07-19", 1, 0.42, false],
      ["2026-07-20", 1, 0, true],
      ["2026-08-01", 1, 0, false],
    ]);
    expect(byDay.totals).toMatchObject({ requests: 5, failures: 1, hasUncosted: true });
    expect(Number(byDay.totals.cost.toFixed(6))).toBe(11.42);
    expect((await get("groupBy=date&granularity=hour")).rows.map((r: any) => r.key)).toEqual(["2026-07-13T09:00", "2026-07-19T23:00", "2026-07-20T00:00", "2026-08-01T12:00"]);
    expect((await get("groupBy=date&granularity=minute")).rows.map((r: any) => r.key)[0]).toBe("2026-07-13T09:15");
    expect((await get("groupBy=date&granularity=week")).rows.map((r: any) => [r.key, r.requests])).toEqual([
      ["2026-07-13", 3],
      ["2026-07-20", 1],
      ["2026-07-27", 1],
    ]);
    expect((await get("groupBy=date&granularity=month")).rows.map((r: any) => [r.key, r.requests])).toEqual([
      ["2026-07", 4],
      ["2026-08", 1],
    ]);
    expect((await get("groupBy=agent")).rows.map((r: any) => [r.key, r.requests, r.hasUncosted])).toEqual([
      ["default_agent", 3, false],
      ["writer", 2, true],
    ]);
    expect((await get("groupBy=model")).rows.map((r: any) => r.key)).toEqual(["deepseek/deepseek-v4-flash", "mystery/unpriced", "testkit/scripted-model"]);
    expect((await get("groupBy=session&agentId=writer")).rows.map((r: any) => r.key)).toEqual([s2, s3]);
    expect((await get("groupBy=session&provider=testkit&modelId=scripted-model")).rows.map((r: any) => [r.key, r.requests])).toEqual([[s1, 3]]);
    expect((await get("from=2026-07-19&to=2026-07-20")).totals.requests).toBe(2);
    expect((await get(`fromTs=${at(2026, 7, 13, 9, 30)}&toTs=${at(2026, 7, 20, 0, 0)}`)).totals.requests).toBe(2);
    expect((await c.get("/api/projects/default_project/usage?provider=testkit")).body.error.field).toBe("modelId");
    expect((await c.get("/api/projects/default_project/usage?granularity=fortnight")).body.error.field).toBe("granularity");
  });
});
