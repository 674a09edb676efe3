// The server's two databases: facts.db (identity and access; web.db of older roots becomes
// it, keeping every user, login, project and member) and projections.db (derived: deleted
// while the server runs, it is rebuilt and answers as before; rebuilt from scratch it equals
// the one the live runner kept, row for row).
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProjectionStore, rebuildProjections } from "@penguin/projections-runner";
import { SERVER_PROJECTIONS } from "../src/services/projections.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** Every projection table, each row as JSON, sorted: a database's whole content, comparable. */
async function dump(store: ProjectionStore): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const tables = store.sqlite.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[];
  for (const { name } of tables) out[name] = (store.sqlite.prepare(`select * from "${name}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort();
  return out;
}

describe("projections.db", { timeout: 30_000 }, () => {
  it("rebuilt into a fresh file equals what the live runner kept: sessions with a subagent, a compaction and a failure", async () => {
    h = await startHarness({
      app: { projectionsPollMs: 20 },
      script: [
        { toolCalls: [{ name: "run_subagent", arguments: { prompt: "write child.txt", description: "Delegate" } }], usage: { input: 500, cached: 100, output: 20 } },
        { toolCalls: [{ name: "write_file", arguments: { file_path: "child.txt", content: "from the child" } }], usage: { input: 300, cached: 0, output: 10 } },
        { text: "child done", usage: { input: 350, cached: 300, output: 5 } },
        { text: "parent done", usage: { input: 900, cached: 500, output: 7 } },
        { text: "summary of the work so far", usage: { input: 1000, cached: 0, output: 30 } },
        { fault: { kind: "http", status: 400, body: "bad request" } },
        { text: "second session answers", usage: { input: 200, cached: 0, output: 3 } },
      ],
    });
    const c = await h.admin();
    const first = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, first);
    await c.post(`/api/sessions/${first}/tasks`, text("delegate it"));
    await untilRunsEnded(sse, 1);
    expect((await c.post(`/api/sessions/${first}/compact`, {})).status).toBe(202);
    await untilRunsEnded(sse, 2);
    await c.post(`/api/sessions/${first}/tasks`, text("this one fails"));
    await untilRunsEnded(sse, 3);
    await sse.close();
    const second = await newSession(c, { workspace: h.workspace });
    const sse2 = await openStream(c, second);
    await c.post(`/api/sessions/${second}/tasks`, text("another"));
    await untilRunsEnded(sse2, 1);
    await sse2.close();

    const live = await h.server.context.projections.store();
    await h.server.context.projections.refresh();
    const incremental = await dump(live);
    expect(incremental.sessions).toHaveLength(3);
    expect(incremental.sessions_links).toHaveLength(1);
    expect(incremental.timeline_compactions).toHaveLength(1);
    expect(incremental.usage_requests!.some((r) => r.includes('"status":"failed"'))).toBe(true);

    // The trace viewer's analysis carries the timeline: tool calls with durations, the subagent pointer.
    const analysis = (await c.get(`/api/projects/default_project/agents/default_agent/traces/${first}/analysis`)).body;
    expect(analysis.timeline.subagents).toHaveLength(1);
    expect(analysis.timeline.toolCalls.map((t: { name: string }) => t.name)).toEqual(["run_subagent"]);
    expect(analysis.timeline.toolCalls[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(analysis.timeline.events).toBeGreaterThan(10);

    const dir = mkdtempSync(join(tmpdir(), "penguin-rebuild-"));
    const fresh = join(dir, "projections.db");
    await rebuildProjections({ root: h.root, file: fresh, projections: SERVER_PROJECTIONS });
    const rebuilt = await ProjectionStore.open({ root: h.root, file: fresh, projections: SERVER_PROJECTIONS });
    expect(await dump(rebuilt)).toEqual(incremental);
    await rebuilt.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deleted while the server runs, is rebuilt, and the usage API, session list and trace viewer answer as before", async () => {
    h = await startHarness({ app: { projectionsPollMs: 20 }, script: [{ text: "fine", usage: { input: 300, cached: 100, output: 7 } }, { fault: { kind: "http", status: 401, body: "bad key" } }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("one"));
    await untilRunsEnded(sse, 1);
    await c.post(`/api/sessions/${sid}/tasks`, text("two"));
    await untilRunsEnded(sse, 2);
    await sse.close();
    const answers = async () => ({
      usage: (await c.get("/api/projects/default_project/usage?groupBy=session")).body,
      errors: (await c.get("/api/projects/default_project/usage/errors")).body,
      session: (await c.get(`/api/sessions/${sid}`)).body.usage,
      list: (await c.get("/api/projects/default_project/agents/default_agent/sessions")).body.sessions.map((s: { id: string; lastActiveAt: number }) => [s.id, s.lastActiveAt]),
      viewer: (await c.get(`/api/sessions/${sid}/analysis`)).body,
    });
    const before = await answers();
    expect(before.usage.rows).toEqual([expect.objectContaining({ key: sid, requests: 2, failures: 1 })]);
    expect(before.session).toEqual({ requests: 2, total: 307 });
    expect(before.viewer.timeline.events).toBeGreaterThan(5);

    const file = join(h.root, "projections.db");
    rmSync(file);
    // Only the runner's rebuild puts a file back at that path.
    await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 20_000, interval: 20 });
    expect(await answers()).toEqual(before);
  });
});

describe("facts.db", { timeout: 30_000 }, () => {
  it("takes over a web.db made before the split, keeping every user, login, project and member", async () => {
    h = await startHarness();
    const admin = await h.admin();
    expect((await admin.post("/api/admin/users", { userId: "bob", password: "bob-password-123" })).status).toBe(201);
    const bob = h.client();
    expect((await bob.login("bob", "bob-password-123")).status).toBe(200);
    expect((await bob.post("/api/projects", { projectId: "bobs_project" })).status).toBe(201);
    expect((await admin.post("/api/projects/bobs_project/members", { userId: "admin" })).status).toBeLessThan(300);
    const projectsBefore = (await bob.get("/api/projects")).body;
    const membersBefore = (await bob.get("/api/projects/bobs_project/members")).body;
    await h.server.close();

    // Make the root look like one from before: web.db at schema version 1, usage tables and all.
    const root = h.root;
    const facts = join(root, "facts.db");
    const legacy = new BetterSqlite3(facts);
    legacy.exec("CREATE TABLE usage_records (id INTEGER PRIMARY KEY, ts INTEGER); CREATE TABLE error_records (id INTEGER PRIMARY KEY, ts INTEGER);");
    legacy.pragma("user_version = 1");
    legacy.close();
    renameSync(facts, join(root, "web.db"));
    rmSync(join(root, "projections.db"), { force: true });

    const kit = h.kit;
    const restarted = await startHarness({ root, adminPassword: h.adminPassword });
    await kit.close();
    h = restarted;
    expect(existsSync(join(root, "web.db"))).toBe(false);
    expect(existsSync(join(root, "facts.db"))).toBe(true);
    // Bob's browser login from before still works (same cookie), and so does his password.
    const sameBrowser = h.client();
    sameBrowser.cookie = bob.cookie;
    expect((await sameBrowser.get("/api/projects")).body).toEqual(projectsBefore);
    const again = h.client();
    expect((await again.login("bob", "bob-password-123")).status).toBe(200);
    expect((await again.get("/api/projects")).body).toEqual(projectsBefore);
    expect((await again.get("/api/projects/bobs_project/members")).body).toEqual(membersBefore);
    const tables = new BetterSqlite3(join(root, "facts.db"), { readonly: true });
    const names = (tables.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name);
    tables.close();
    expect(names).toEqual(expect.arrayContaining(["users", "auth_sessions", "projects", "project_members", "ui_prefs", "server_settings", "schedule_state"]));
    expect(names).not.toContain("usage_records");
  });
});
