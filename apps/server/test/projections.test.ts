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
import { dumpProjections, untilTitled } from "./helpers/projection-dump.js";
import { onPostgres } from "./helpers/test-database.js";
import pg from "pg";

/**
 * facts.db exactly as the hand-written migrations left it (schema version 2, with the
 * session_creators table its store created on first use): the file a server from before the
 * move to Kysely has on disk.
 */
const HAND_WRITTEN_SCHEMA_V2 = `
CREATE TABLE users (user_id TEXT PRIMARY KEY, password_hash TEXT NOT NULL, is_admin INTEGER NOT NULL DEFAULT 0, password_is_initial INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
CREATE TABLE auth_sessions (token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, via TEXT NOT NULL DEFAULT 'password');
CREATE INDEX auth_sessions_by_user ON auth_sessions(user_id);
CREATE TABLE projects (project_id TEXT PRIMARY KEY, owner_user_id TEXT NOT NULL REFERENCES users(user_id), name TEXT, created_at INTEGER NOT NULL);
CREATE TABLE project_members (project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE, user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE, created_at INTEGER NOT NULL, PRIMARY KEY (project_id, user_id));
CREATE INDEX project_members_by_user ON project_members(user_id);
CREATE TABLE agents (project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE, agent_id TEXT NOT NULL, name TEXT, description TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (project_id, agent_id));
CREATE TABLE sessions (session_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, agent_id TEXT NOT NULL, provider TEXT, model_id TEXT, workspace TEXT, approval_mode TEXT NOT NULL DEFAULT 'allow-all', thinking_level TEXT, title TEXT, archived_at INTEGER, client TEXT NOT NULL DEFAULT 'web' CHECK (client IN ('web', 'cli')), has_trace INTEGER NOT NULL DEFAULT 0, fork_count INTEGER NOT NULL DEFAULT 0, last_active_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX sessions_by_agent ON sessions(project_id, agent_id, last_active_at DESC);
CREATE TABLE schedule_state (project_id TEXT NOT NULL, agent_id TEXT NOT NULL, name TEXT NOT NULL, creator_user_id TEXT, start_at_ms INTEGER, def_hash TEXT, last_slot_ms INTEGER, last_fired_at INTEGER, fired_once INTEGER NOT NULL DEFAULT 0, missed INTEGER NOT NULL DEFAULT 0, invalid_reason TEXT, PRIMARY KEY (project_id, agent_id, name));
CREATE TABLE goal_state (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, project_id TEXT NOT NULL, agent_id TEXT NOT NULL, objective TEXT NOT NULL, status TEXT NOT NULL, budget INTEGER, used INTEGER NOT NULL DEFAULT 0, rounds INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE ui_prefs (user_id TEXT PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE, prefs_json TEXT NOT NULL);
CREATE TABLE server_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE trace_sessions (session_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, agent_id TEXT NOT NULL, source TEXT, file_count INTEGER NOT NULL, mtime_ms INTEGER NOT NULL);
CREATE TABLE trace_files (path TEXT PRIMARY KEY, session_id TEXT NOT NULL, file_index INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER NOT NULL);
CREATE INDEX trace_files_by_session ON trace_files(session_id);
CREATE TABLE session_creators (session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL);
`;

/**
 * Rewrites `<root>/facts.db` into the hand-written v2 layout, every row of every table kept.
 * What later steps dropped is put back as a server of then had it: each session's
 * `last_active_at` (its creation time here) and `has_trace`, and the trace scan cache (`trace_sessions` with
 * the run source, `trace_files`), filled for the sessions given.
 */
function rewriteAsHandWrittenV2(root: string, cached: { sessionId: string; source: string | null }[] = []): void {
  const file = join(root, "facts.db");
  const made = new BetterSqlite3(file);
  made.pragma("wal_checkpoint(TRUNCATE)");
  made.close();
  const rebuilt = join(root, "facts-v2.db");
  const old = new BetterSqlite3(rebuilt);
  old.exec(HAND_WRITTEN_SCHEMA_V2);
  old.pragma("user_version = 2");
  old.prepare("ATTACH DATABASE ? AS made").run(file);
  const tables = (old.prepare("select name from made.sqlite_master where type = 'table' and name <> 'sqlite_sequence' and name not like 'kysely%' and name <> 'login_attempts'").all() as { name: string }[]).map((r) => r.name);
  for (const table of tables) {
    // The columns both layouts have (a later step dropped the session facts: the old ones take their defaults).
    const madeColumns = new Set((old.prepare(`select name from pragma_table_info('${table}', 'made')`).all() as { name: string }[]).map((r) => r.name));
    const putBack: Record<string, string> = { last_active_at: "created_at", has_trace: "1" };
    const columns = (old.prepare(`select name from pragma_table_info('${table}')`).all() as { name: string }[]).map((r) => r.name).filter((c) => madeColumns.has(c) || (table === "sessions" && c in putBack));
    const values = columns.map((c) => (table === "sessions" ? (putBack[c] ?? c) : c));
    old.exec(`INSERT INTO main.${table} (${columns.join(", ")}) SELECT ${values.join(", ")} FROM made.${table}`);
  }
  for (const { sessionId, source } of cached) {
    const s = old.prepare("select project_id, agent_id, created_at from main.sessions where session_id = ?").get(sessionId) as { project_id: string; agent_id: string; created_at: number };
    old.prepare("INSERT INTO main.trace_sessions (session_id, project_id, agent_id, source, file_count, mtime_ms) VALUES (?, ?, ?, ?, 1, ?)").run(sessionId, s.project_id, s.agent_id, source, s.created_at);
    old.prepare("INSERT INTO main.trace_files (path, session_id, file_index, size, mtime_ms) VALUES (?, ?, 1, 1, ?)").run(`/old/${sessionId}.jsonl`, sessionId, s.created_at);
  }
  old.exec("DETACH DATABASE made");
  old.close();
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  renameSync(rebuilt, file);
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

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
    // Not about approvals: the subagent and its write run without asking (web sessions start read-only).
    const first = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
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
    // The titler appends each session's title after its run ends: wait for both, so no line is still to come.
    await untilTitled(h, [first, second]);
    const incremental = await dumpProjections(live);
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
    // On PostgreSQL (the suite's second run) a fresh schema of the same database stands for the fresh file.
    const target = (name: string) => (live.database.engine === "postgres" ? { file: live.database.file, schema: name } : { file: join(dir, `${name}.db`) });
    await rebuildProjections({ root: h.root, ...target("rebuilt"), projections: SERVER_PROJECTIONS, parallel: false });
    const rebuilt = await ProjectionStore.open({ root: h.root, ...target("rebuilt"), projections: SERVER_PROJECTIONS });
    expect(await dumpProjections(rebuilt)).toEqual(incremental);
    await rebuilt.close();
    // On two threads (a worker builds the later sessions into its own file, joined after): the same rows.
    await rebuildProjections({ root: h.root, ...target("two_threads"), projections: SERVER_PROJECTIONS, parallel: true });
    const joined = await ProjectionStore.open({ root: h.root, ...target("two_threads"), projections: SERVER_PROJECTIONS });
    expect(await dumpProjections(joined)).toEqual(incremental);
    await joined.close();
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

    if (onPostgres()) {
      // The projections are a schema of the server's PostgreSQL database: dropped whole, the runner builds it again.
      const url = (await h.server.context.projections.store()).database.file;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query("drop schema penguin_projections cascade");
        await vi.waitFor(async () => expect((await client.query("select 1 from information_schema.tables where table_schema = 'penguin_projections' and table_name = 'sessions'")).rowCount).toBe(1), { timeout: 20_000, interval: 20 });
      } finally {
        await client.end();
      }
    } else {
      const file = join(h.root, "projections.db");
      rmSync(file);
      // Only the runner's rebuild puts a file back at that path.
      await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 20_000, interval: 20 });
    }
    expect(await answers()).toEqual(before);
  });
});

/** These tests are about facts.db files themselves: SQLite even when the suite runs on PostgreSQL. */
const SQLITE_FILE = { app: { database: "" } };

describe("facts.db", { timeout: 30_000 }, () => {
  it("holds no trace-derived data: a run leaves the session's row as it was, and the list orders by the latest trace event", async () => {
    h = await startHarness({ app: { projectionsPollMs: 20 }, script: [{ text: "done", usage: { input: 10, cached: 0, output: 2 } }] });
    const c = await h.admin();
    const first = await newSession(c, { workspace: h.workspace });
    const second = await newSession(c, { workspace: h.workspace });
    const facts = h.server.context.stores.facts;
    const rowOf = (id: string) => facts.first(facts.query.selectFrom("sessions").selectAll().where("session_id", "=", id));
    const before = rowOf(first);
    const sse = await openStream(c, first);
    await c.post(`/api/sessions/${first}/tasks`, text("go"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    // The titler appends the title after the run: wait for it, so the session's last event is written.
    await untilTitled(h, [first]);
    // A title chosen for the session is the server's decision: the only column a run may change.
    expect({ ...(rowOf(first) as object), title: null }).toEqual({ ...(before as object), title: null });
    const tables = (await facts.query.introspection.getTables()).map((t) => t.name);
    expect(tables).not.toContain("trace_sessions");
    expect(tables).not.toContain("trace_files");

    const listed = (await c.get("/api/projects/default_project/agents/default_agent/sessions")).body.sessions as { id: string; lastActiveAt: number; hasTrace: boolean }[];
    expect(listed.map((s) => s.id)).toEqual([first, second]);
    const lastEvent = await h.server.context.projections.read((db) => db.selectFrom("sessions").select("last_event_at").where("session_id", "=", first).executeTakeFirstOrThrow());
    expect(listed[0]?.lastActiveAt).toBe(Number(lastEvent.last_event_at));
    expect(listed.every((s) => s.hasTrace)).toBe(true);
    expect((await c.get(`/api/sessions/${first}`)).body.lastActiveAt).toBe(Number(lastEvent.last_event_at));
  });

  it("takes over a web.db made before the split, keeping every user, login, project and member", async () => {
    h = await startHarness(SQLITE_FILE);
    const admin = await h.admin();
    expect((await admin.post("/api/admin/users", { userId: "bob", password: "bob-password-123" })).status).toBe(201);
    const bob = h.client();
    expect((await bob.login("bob", "bob-password-123")).status).toBe(200);
    expect((await bob.post("/api/projects", { projectId: "bobs_project" })).status).toBe(201);
    expect((await admin.post("/api/projects/bobs_project/members", { userId: "admin" })).status).toBeLessThan(300);
    const projectsBefore = (await bob.get("/api/projects")).body;
    const membersBefore = (await bob.get("/api/projects/bobs_project/members")).body;
    await h.server.close();

    // Make the root look like one from before: web.db at schema version 1, usage tables and all,
    // without what later steps added (Kysely's bookkeeping) and with what they dropped (the
    // session facts and the goal table).
    const root = h.root;
    const facts = join(root, "facts.db");
    const legacy = new BetterSqlite3(facts);
    // login_attempts came after (step 7): a file of then has no such table.
    legacy.exec("DROP TABLE kysely_migration; DROP TABLE kysely_migration_lock; DROP TABLE login_attempts;");
    legacy.exec(
      "ALTER TABLE sessions ADD COLUMN approval_mode TEXT NOT NULL DEFAULT 'allow-all'; ALTER TABLE sessions ADD COLUMN thinking_level TEXT; ALTER TABLE sessions ADD COLUMN title TEXT; ALTER TABLE sessions ADD COLUMN archived_at INTEGER; ALTER TABLE sessions ADD COLUMN client TEXT NOT NULL DEFAULT 'web'; ALTER TABLE sessions ADD COLUMN fork_count INTEGER NOT NULL DEFAULT 0;",
    );
    legacy.exec("CREATE TABLE goal_state (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, project_id TEXT NOT NULL, agent_id TEXT NOT NULL, objective TEXT NOT NULL, status TEXT NOT NULL, budget INTEGER, used INTEGER NOT NULL DEFAULT 0, rounds INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);");
    // …and with what a server of then derived from the traces: the scan cache and each session's last activity.
    legacy.exec("ALTER TABLE sessions ADD COLUMN last_active_at INTEGER NOT NULL DEFAULT 0; ALTER TABLE sessions ADD COLUMN has_trace INTEGER NOT NULL DEFAULT 0; UPDATE sessions SET last_active_at = created_at, has_trace = 1;");
    legacy.exec("CREATE TABLE trace_sessions (session_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, agent_id TEXT NOT NULL, source TEXT, file_count INTEGER NOT NULL, mtime_ms INTEGER NOT NULL);");
    legacy.exec("CREATE TABLE trace_files (path TEXT PRIMARY KEY, session_id TEXT NOT NULL, file_index INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER NOT NULL); CREATE INDEX trace_files_by_session ON trace_files(session_id);");
    legacy.exec("CREATE TABLE usage_records (id INTEGER PRIMARY KEY, ts INTEGER); CREATE TABLE error_records (id INTEGER PRIMARY KEY, ts INTEGER);");
    legacy.pragma("user_version = 1");
    legacy.close();
    renameSync(facts, join(root, "web.db"));
    rmSync(join(root, "projections.db"), { force: true });

    const kit = h.kit;
    const restarted = await startHarness({ root, adminPassword: h.adminPassword, ...SQLITE_FILE });
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
    expect(names).not.toContain("trace_sessions");
    expect(names).not.toContain("trace_files");
  });

  it("upgrades a facts.db made by the hand-written migrations (schema version 2) in place, keeping every user, login, project, member, preference and session creator", async () => {
    h = await startHarness(SQLITE_FILE);
    const admin = await h.admin();
    expect((await admin.post("/api/admin/users", { userId: "carol", password: "carol-password-123" })).status).toBe(201);
    const carol = h.client();
    expect((await carol.login("carol", "carol-password-123")).status).toBe(200);
    expect((await carol.put("/api/me/prefs", { theme: "dark", sidebar: 240 })).status).toBe(200);
    expect((await admin.post("/api/projects/default_project/members", { userId: "carol" })).status).toBeLessThan(300);
    // Carol creates a session, so she (a member, not an owner) may control it: the creator record.
    const sid = await newSession(carol, { workspace: h.workspace });
    expect((await carol.patch(`/api/sessions/${sid}`, { approvalMode: "always-ask" })).status).toBe(200);
    const projectsBefore = (await carol.get("/api/projects")).body;
    const membersBefore = (await admin.get("/api/projects/default_project/members")).body;
    const usersBefore = (await admin.get("/api/admin/users")).body;
    const listed = async (client: typeof carol) =>
      (await client.get("/api/projects/default_project/agents/default_agent/sessions")).body.sessions.map((s: Record<string, unknown>) => [s.id, s.title, s.approvalMode, s.source, s.lastActiveAt]);
    const listBefore = await listed(carol);
    expect(listBefore.map((s: unknown[]) => s[0])).toEqual([sid]);
    await h.server.close();

    rewriteAsHandWrittenV2(h.root, [{ sessionId: sid, source: null }]);
    const before = new BetterSqlite3(join(h.root, "facts.db"), { readonly: true });
    expect(before.pragma("user_version", { simple: true })).toBe(2);
    expect((before.prepare("select name from sqlite_master where name like 'kysely%'").all() as unknown[]).length).toBe(0);
    before.close();

    const kit = h.kit;
    const restarted = await startHarness({ root: h.root, adminPassword: h.adminPassword, ...SQLITE_FILE });
    await kit.close();
    h = restarted;
    const sameBrowser = h.client();
    sameBrowser.cookie = carol.cookie;
    expect((await sameBrowser.get("/api/projects")).body).toEqual(projectsBefore);
    expect((await sameBrowser.get("/api/me/prefs")).body).toEqual({ theme: "dark", sidebar: 240 });
    expect((await sameBrowser.patch(`/api/sessions/${sid}`, { approvalMode: "allow-all" })).status).toBe(200);
    expect((await sameBrowser.get(`/api/sessions/${sid}`)).body).toMatchObject({ id: sid, approvalMode: "allow-all", sandboxNetwork: false, hasTrace: true });
    const again = h.client();
    expect((await again.login("carol", "carol-password-123")).status).toBe(200);
    const adminAgain = await h.admin();
    expect((await adminAgain.get("/api/projects/default_project/members")).body).toEqual(membersBefore);
    expect((await adminAgain.get("/api/admin/users")).body).toEqual(usersBefore);
    // The session list reads what the traces derive from the sessions projection: the same answer
    // (the approval mode is the one set again above).
    // The PATCH is an event of the session's trace, so its last activity is that event's time.
    const listAfter = await listed(again);
    expect(listAfter.map((s: unknown[]) => s.slice(0, 4))).toEqual(listBefore.map((s: unknown[]) => [s[0], s[1], "allow-all", s[3]]));
    expect(listAfter[0][4]).toBeGreaterThanOrEqual(listBefore[0][4]);

    const after = new BetterSqlite3(join(h.root, "facts.db"), { readonly: true });
    const applied = (after.prepare("select name from kysely_migration order by name").all() as { name: string }[]).map((r) => r.name);
    const sessionColumns = (after.prepare("select name from pragma_table_info('sessions')").all() as { name: string }[]).map((r) => r.name);
    const tables = (after.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name);
    const version = after.pragma("user_version", { simple: true });
    after.close();
    expect(applied).toEqual(["0001_initial_schema", "0002_usage_moves_to_projections", "0003_session_creators", "0004_session_sandbox_network", "0005_trace_derived_data_moves_to_projections", "0006_session_facts_move_to_the_trace", "0007_login_attempts"]);
    // The session facts are the trace's (read from the fold or the sessions projection), not columns here.
    expect(sessionColumns).toEqual(["session_id", "project_id", "agent_id", "provider", "model_id", "workspace", "created_at"]);
    expect(tables).not.toContain("goal_state");
    expect(sessionColumns).not.toContain("last_active_at");
    expect(sessionColumns).not.toContain("has_trace");
    expect(tables).not.toContain("trace_sessions");
    expect(tables).not.toContain("trace_files");
    expect(version).toBe(applied.length);
  });
});
