// facts.db's Kysely migrations on real SQLite files: a fresh file gets every step; opening it
// again runs nothing; a step that fails rolls the whole upgrade back (the file keeps its
// previous version, bookkeeping included); and the synchronous store handle runs
// Kysely-built queries with their parameters.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, type Migration } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.js";
import { FACTS_MIGRATIONS, migrateFacts } from "../src/db/migrations.js";
import { UserStore } from "../src/db/users-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "penguin-facts-"));
  dirs.push(dir);
  return join(dir, "facts.db");
};

const tableNames = (sqlite: BetterSqlite3.Database) =>
  (sqlite.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[]).map((r) => r.name);

describe("facts.db migrations", () => {
  it("apply every step to a fresh file, and none when it is opened again", async () => {
    const file = tempFile();
    const first = await openDatabase(file);
    expect(tableNames(first.sqlite)).toEqual(expect.arrayContaining(["users", "auth_sessions", "projects", "project_members", "sessions", "session_creators", "kysely_migration"]));
    expect(tableNames(first.sqlite)).not.toContain("usage_records");
    expect(first.sqlite.pragma("user_version", { simple: true })).toBe(Object.keys(FACTS_MIGRATIONS).length);
    first.sqlite.close();

    const sqlite = new BetterSqlite3(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    expect(await migrateFacts(db)).toEqual([]);
    sqlite.close();
  });

  it("roll the whole upgrade back when a step fails: no table of the failed run, no record of it", async () => {
    const file = tempFile();
    (await openDatabase(file)).sqlite.close();
    const sqlite = new BetterSqlite3(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    const failing: Record<string, Migration> = {
      ...FACTS_MIGRATIONS,
      "9000_adds_a_table": { up: async (k: Kysely<any>) => void (await k.schema.createTable("half_done").addColumn("x", "integer").execute()) },
      "9000_fails": {
        up: async () => {
          throw new Error("step failed on purpose");
        },
      },
    };
    await expect(migrateFacts(db, failing)).rejects.toThrow("step failed on purpose");
    expect(tableNames(sqlite)).not.toContain("half_done");
    expect((sqlite.prepare("select count(*) as n from kysely_migration").get() as { n: number }).n).toBe(Object.keys(FACTS_MIGRATIONS).length);
    expect(sqlite.pragma("user_version", { simple: true })).toBe(Object.keys(FACTS_MIGRATIONS).length);
    sqlite.close();
  });

  it("adopt a pre-Kysely file by its user_version: the steps it has are recorded, not run again", async () => {
    const file = tempFile();
    const sqlite = new BetterSqlite3(file);
    // A hand-written version-1 file: the users table with a row, nothing else needed to tell.
    sqlite.exec("CREATE TABLE users (user_id TEXT PRIMARY KEY, password_hash TEXT NOT NULL, is_admin INTEGER NOT NULL DEFAULT 0, password_is_initial INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL)");
    sqlite.exec("CREATE TABLE sessions (session_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, agent_id TEXT NOT NULL, last_active_at INTEGER NOT NULL, created_at INTEGER NOT NULL)");
    sqlite.exec("CREATE TABLE usage_records (id INTEGER PRIMARY KEY, ts INTEGER)");
    sqlite.prepare("INSERT INTO users (user_id, password_hash, created_at) VALUES (?, ?, ?)").run("dave", "hash", 1);
    sqlite.pragma("user_version = 1");
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    expect(await migrateFacts(db)).toEqual(["0002_usage_moves_to_projections", "0003_session_creators", "0004_session_sandbox_network", "0005_trace_derived_data_moves_to_projections", "0006_session_facts_move_to_the_trace", "0007_login_attempts"]);
    expect(tableNames(sqlite)).not.toContain("usage_records");
    expect((sqlite.prepare("select user_id from users").all() as { user_id: string }[]).map((r) => r.user_id)).toEqual(["dave"]);
    sqlite.close();
  });

  it("drop what the traces derive (the trace scan cache, the sessions' last activity and trace flag) from a version-4 file, keeping every session row and setting", async () => {
    const file = tempFile();
    const sqlite = new BetterSqlite3(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    const upToFour = Object.fromEntries(Object.entries(FACTS_MIGRATIONS).filter(([name]) => name < "0005"));
    expect(Object.keys(upToFour)).toHaveLength(4);
    await migrateFacts(db, upToFour);
    sqlite
      .prepare("INSERT INTO sessions (session_id, project_id, agent_id, provider, model_id, workspace, approval_mode, thinking_level, title, archived_at, client, has_trace, fork_count, last_active_at, created_at, sandbox_network) VALUES (?, 'p', 'a', 'prov', 'model', '/w', 'always-ask', 'high', 'A title', 7, 'cli', 1, 2, 900, 100, 1)")
      .run("20250101-000000-abcdef");
    sqlite.prepare("INSERT INTO trace_sessions (session_id, project_id, agent_id, source, file_count, mtime_ms) VALUES (?, 'p', 'a', 'subagent', 1, 900)").run("20250101-000000-abcdef");
    sqlite.prepare("INSERT INTO trace_files (path, session_id, file_index, size, mtime_ms) VALUES ('/x/001.jsonl', ?, 1, 10, 900)").run("20250101-000000-abcdef");
    const sessionBefore = sqlite.prepare("select * from sessions").get() as Record<string, unknown>;

    const upToFive = Object.fromEntries(Object.entries(FACTS_MIGRATIONS).filter(([name]) => name < "0006"));
    expect(await migrateFacts(db, upToFive)).toEqual(["0005_trace_derived_data_moves_to_projections"]);
    expect(tableNames(sqlite)).not.toContain("trace_sessions");
    expect(tableNames(sqlite)).not.toContain("trace_files");
    const { last_active_at: _lastActive, has_trace: _hasTrace, ...facts } = sessionBefore;
    expect(Object.keys(facts)).toEqual(expect.arrayContaining(["session_id", "project_id", "agent_id", "provider", "model_id", "workspace", "approval_mode", "thinking_level", "title", "archived_at", "client", "fork_count", "created_at", "sandbox_network"]));
    expect(sqlite.prepare("select * from sessions").all()).toEqual([facts]);
    expect((sqlite.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'sessions' and name = 'sessions_by_agent'").all() as unknown[]).length).toBe(1);
    sqlite.close();
  });

  it("drop the session facts the trace records (settings, title, archive, network, fork count, client, goals) from a version-5 file, keeping every session row's place", async () => {
    const file = tempFile();
    const sqlite = new BetterSqlite3(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    const upToFive = Object.fromEntries(Object.entries(FACTS_MIGRATIONS).filter(([name]) => name < "0006"));
    await migrateFacts(db, upToFive);
    sqlite
      .prepare("INSERT INTO sessions (session_id, project_id, agent_id, provider, model_id, workspace, approval_mode, thinking_level, title, archived_at, client, fork_count, created_at, sandbox_network) VALUES (?, 'p', 'a', 'prov', 'model', '/w', 'deny-all', 'high', 'A title', 7, 'cli', 2, 100, 1)")
      .run("20250101-000000-abcdef");
    sqlite.prepare("INSERT INTO goal_state (session_id, project_id, agent_id, objective, status, budget, created_at, updated_at) VALUES (?, 'p', 'a', 'ship', 'active', 10, 1, 1)").run("20250101-000000-abcdef");

    expect(await migrateFacts(db)).toEqual(["0006_session_facts_move_to_the_trace", "0007_login_attempts"]);
    expect(tableNames(sqlite)).not.toContain("goal_state");
    expect(sqlite.prepare("select * from sessions").all()).toEqual([
      { session_id: "20250101-000000-abcdef", project_id: "p", agent_id: "a", provider: "prov", model_id: "model", workspace: "/w", created_at: 100 },
    ]);
    sqlite.close();
  });

  it("run Kysely-built queries synchronously, with their parameters, through one prepared statement per shape", async () => {
    const facts = await openDatabase(tempFile());
    const users = new UserStore(facts);
    users.insert({ userId: "erin", passwordHash: "h1", isAdmin: false, passwordIsInitial: true, createdAt: 2 });
    users.insert({ userId: "fred", passwordHash: "h2", isAdmin: true, passwordIsInitial: false, createdAt: 1 });
    expect(users.get("erin")).toEqual({ userId: "erin", passwordHash: "h1", isAdmin: false, passwordIsInitial: true, createdAt: 2 });
    expect(users.get("nobody")).toBeUndefined();
    expect(users.list().map((u) => u.userId)).toEqual(["fred", "erin"]);
    expect(users.firstAdmin()?.userId).toBe("fred");
    users.setPassword("erin", "h3", false);
    expect(users.get("erin")).toMatchObject({ passwordHash: "h3", passwordIsInitial: false });
    expect(() => facts.transaction(() => {
      users.delete("erin");
      throw new Error("rolled back");
    })).toThrow("rolled back");
    expect(users.get("erin")).toBeDefined();
    facts.sqlite.close();
  });

  it("prepare a query once and bind each call's arguments; refuse a builder that does not use an argument as a value", async () => {
    const facts = await openDatabase(tempFile());
    const users = new UserStore(facts);
    for (const [userId, createdAt] of [["gus", 5], ["hal", 7], ["ida", 9]] as const) users.insert({ userId, passwordHash: "h", isAdmin: false, passwordIsInitial: false, createdAt });
    const between = facts.prepare(2, (from: number, to: number) => facts.query.selectFrom("users").select("user_id").where("created_at", ">=", from).where("created_at", "<=", to).orderBy("user_id"));
    expect(between.all(6, 9).map((r) => r.user_id)).toEqual(["hal", "ida"]);
    expect(between.all(0, 5).map((r) => r.user_id)).toEqual(["gus"]);
    expect(between.first(100, 200)).toBeUndefined();
    const rename = facts.prepare(2, (from: string, to: string) => facts.query.updateTable("users").set({ user_id: to }).where("user_id", "=", from));
    expect(rename.run("gus", "guy").changes).toBe(1);
    expect(users.get("guy")?.createdAt).toBe(5);
    expect(() => facts.prepare(1, (_unused: string) => facts.query.selectFrom("users").selectAll())).toThrow("must use each of its 1 arguments");
    facts.sqlite.close();
  });
});
