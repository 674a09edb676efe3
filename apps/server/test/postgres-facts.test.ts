// The facts database on PostgreSQL, against a real server (helpers/postgres.ts): a server given
// --database keeps its users, logins and projects there and not in facts.db; two servers
// starting on one empty database migrate it once; `migrate-db` moves an existing SQLite root
// into PostgreSQL losing no user, project, member or login; bad URLs and non-empty targets are
// refused with what to do. These run whatever PENGUIN_TEST_DATABASE says.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Kysely } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../src/app.js";
import { projectionPool } from "@penguin/projections-runner";
import { openDatabase, openPostgresFacts, postgresFactsPool } from "../src/db/database.js";
import { FACTS_TABLES, moveFactsToPostgres } from "../src/db/move-to-postgres.js";
import { startHarness } from "./helpers/harness.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** A table's rows read with plain `pg`, int8 as numbers (what the server's connection does too). */
async function rowsOf(url: string, table: string): Promise<Record<string, unknown>[]> {
  const types = { getTypeParser: (oid: number, format?: "text" | "binary") => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")) };
  const client = new pg.Client({ connectionString: url, types: types as never });
  await client.connect();
  try {
    return (await client.query(`select * from ${table}`)).rows;
  } finally {
    await client.end();
  }
}

describe("facts in PostgreSQL", { timeout: 60_000 }, () => {
  it("a server given --database keeps users, logins and projects there, and no facts.db appears", async () => {
    const url = await server.createDatabase("facts_live");
    const h = await startHarness({ app: { database: url } });
    try {
      const admin = await h.admin();
      expect((await admin.post("/api/admin/users", { userId: "alice", password: "alice-password" })).status).toBe(201);
      expect((await admin.post("/api/projects", { projectId: "team" })).status).toBe(201);
      expect((await admin.post("/api/projects/team/members", { userId: "alice" })).status).toBe(204);
      expect(existsSync(join(h.root, "facts.db"))).toBe(false);
      expect((await rowsOf(url, "users")).map((r) => r.user_id).sort()).toEqual(["admin", "alice"]);
      expect((await rowsOf(url, "project_members")).map((r) => `${r.project_id}/${r.user_id}`)).toContain("team/alice");
      expect((await rowsOf(url, "auth_sessions")).length).toBeGreaterThan(0);
      // Times in milliseconds need 64 bits: read back as numbers, equal to what was written.
      const alice = (await admin.get("/api/admin/users")).body.users.find((u: { userId: string }) => u.userId === "alice");
      expect(typeof alice.createdAt).toBe("number");
      expect(alice.createdAt).toBe(h.clock.now());
    } finally {
      await h.cleanup();
    }
  });

  it("carries on with a new connection when PostgreSQL drops the one it had", async () => {
    const url = await server.createDatabase("facts_dropped");
    const h = await startHarness({ app: { database: url } });
    try {
      const admin = await h.admin();
      expect((await admin.get("/api/me")).status).toBe(200);
      const maintenance = new pg.Client({ connectionString: server.databaseUrl() });
      await maintenance.connect();
      try {
        const ended = await maintenance.query("select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", ["facts_dropped"]);
        expect(ended.rowCount).toBeGreaterThan(0);
      } finally {
        await maintenance.end();
      }
      // The first statement may still meet the dead connection (a 500); a later one reconnects.
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i++) status = (await admin.get("/api/me")).status;
      expect(status).toBe(200);
      expect((await admin.post("/api/admin/users", { userId: "dora", password: "dora-password" })).status).toBe(201);
      expect((await rowsOf(url, "users")).map((r) => r.user_id)).toContain("dora");
    } finally {
      await h.cleanup();
    }
  });

  it("a connection PostgreSQL drops while it is out of its pool, between two statements, fails the next one and is not thrown", async () => {
    // Before the pools kept an error listener on connections they hand out, the FATAL that
    // `pg_terminate_backend` sends arrived with no listener and was an uncaught exception (it
    // stopped a server; here, vitest counted it as an error of the run). Both pools: the facts'
    // and the projections'.
    const url = await server.createDatabase("facts_held");
    for (const pool of [await postgresFactsPool(url), await projectionPool(url, "public")]) {
      try {
        const held = await pool.connect();
        const pid = ((await held.query("select pg_backend_pid() as pid")).rows[0] as { pid: number }).pid;
        const ended = new Promise((resolve) => held.once("end", resolve));
        const maintenance = new pg.Client({ connectionString: server.databaseUrl() });
        await maintenance.connect();
        try {
          await maintenance.query("select pg_terminate_backend($1)", [pid]);
        } finally {
          await maintenance.end();
        }
        // The connection ends while nothing runs on it.
        await ended;
        await expect(held.query("select 1")).rejects.toThrow();
        held.release();
        expect(((await pool.query("select 1 as one")).rows[0] as { one: number }).one).toBe(1);
      } finally {
        await pool.end();
      }
    }
  });

  it("two servers opening one empty database at once migrate it once", async () => {
    const url = await server.createDatabase("facts_race");
    const [a, b] = await Promise.all([openPostgresFacts(url), openPostgresFacts(url)]);
    a.close();
    b.close();
    const steps = (await rowsOf(url, "kysely_migration")).map((r) => r.name);
    expect(steps.length).toBe(new Set(steps).size);
    expect(steps).toContain("0006_session_facts_move_to_the_trace");
  });

  it("refuses a --database that is not a postgres:// URL, naming it and what to give", async () => {
    await expect(createServerApp({ root: join(server.dir, "unused-root"), env: {}, database: "mysql://db/penguin" })).rejects.toThrow(/must be a postgres:\/\/ URL.*mysql:\/\/db\/penguin/);
  });

  it("names an unreachable PostgreSQL without its password and says what to do", async () => {
    const gone = `postgres://penguin:secret-pw@localhost/nothing?host=${encodeURIComponent(join(server.dir, "no-such-socket-dir"))}`;
    const failure = await openPostgresFacts(gone).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/Could not use the PostgreSQL database/);
    expect(failure?.message).toMatch(/createdb/);
    expect(failure?.message).not.toContain("secret-pw");
  });
});

describe("two servers on one PostgreSQL", { timeout: 90_000 }, () => {
  it("share logins and the login lockout: five wrong passwords on node A make node B refuse the sixth", async () => {
    const url = await server.createDatabase("facts_two_nodes");
    const a = await startHarness({ app: { database: url } });
    const b = await startHarness({ app: { database: url }, adminPassword: a.adminPassword });
    try {
      const admin = await a.admin();
      expect((await admin.post("/api/admin/users", { userId: "carol", password: "carol-password" })).status).toBe(201);
      // A login made on A is valid on B.
      const onB = b.client();
      onB.cookie = admin.cookie;
      expect((await onB.get("/api/me")).body.user.userId).toBe("admin");

      const guess = (harness: typeof a) => harness.client().post("/api/auth/login", { userId: "carol", password: "wrong" });
      for (let i = 0; i < 5; i++) expect((await guess(a)).status).toBe(401);
      const refused = await guess(b);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("rate_limited");
      // The right password is refused too while the wait lasts, on either node.
      expect((await b.client().post("/api/auth/login", { userId: "carol", password: "carol-password" })).status).toBe(429);
    } finally {
      await b.cleanup();
      await a.cleanup();
    }
  });
});

describe("penguin server migrate-db", { timeout: 90_000 }, () => {
  it("moves a SQLite root's users, projects, members and logins to PostgreSQL: a login made before still works after", async () => {
    // A root on SQLite, explicitly (whatever PENGUIN_TEST_DATABASE says).
    const before = await startHarness({ app: { database: "" } });
    const root = before.root;
    let aliceCookie: string | undefined;
    const url = await server.createDatabase("facts_moved");
    try {
      const admin = await before.admin();
      for (const userId of ["alice", "bob"]) expect((await admin.post("/api/admin/users", { userId, password: `${userId}-password` })).status).toBe(201);
      expect((await admin.post("/api/projects", { projectId: "team" })).status).toBe(201);
      expect((await admin.post("/api/projects/team/members", { userId: "alice" })).status).toBe(204);
      const alice = before.client();
      await alice.signIn("alice", "alice-password");
      aliceCookie = alice.cookie;
      expect((await alice.get("/api/projects")).body.projects.map((p: { projectId: string }) => p.projectId)).toContain("team");
    } finally {
      await before.server.close();
    }

    // Every facts table is moved: the list the command copies is the list facts.db has.
    const sqlite = await openDatabase(join(root, "facts.db"));
    const tables = (await sqlite.query.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith("kysely_"));
    const sqliteRows = Object.fromEntries(FACTS_TABLES.map((t) => [t, sqlite.all((sqlite.query as Kysely<any>).selectFrom(t).selectAll())]));
    sqlite.close();
    expect([...tables].sort()).toEqual([...FACTS_TABLES].sort());

    const report = await moveFactsToPostgres(root, url);
    expect(report.copied.users).toBe(3);
    expect(report.copied.project_members).toBeGreaterThanOrEqual(1);
    for (const table of FACTS_TABLES) {
      const key = (r: Record<string, unknown>) => JSON.stringify(Object.entries(r).sort());
      expect((await rowsOf(url, table)).map(key).sort(), table).toEqual((sqliteRows[table] as Record<string, unknown>[]).map(key).sort());
    }

    const after = await startHarness({ root, app: { database: url }, adminPassword: before.adminPassword });
    try {
      const alice = after.client();
      alice.cookie = aliceCookie;
      expect((await alice.get("/api/me")).body.user.userId).toBe("alice");
      expect((await alice.get("/api/projects")).body.projects.map((p: { projectId: string }) => p.projectId)).toContain("team");
      const bob = after.client();
      await bob.signIn("bob", "bob-password");
      expect((await bob.get("/api/projects")).body.projects.map((p: { projectId: string }) => p.projectId)).not.toContain("team");
    } finally {
      await after.cleanup();
      await before.kit.close();
    }
  });

  it("refuses a target that already holds users, and a target that is not a postgres:// URL", async () => {
    const url = await server.createDatabase("facts_taken");
    const first = await startHarness({ app: { database: url } });
    const sqliteRoot = await startHarness({ app: { database: "" } });
    try {
      await expect(moveFactsToPostgres(sqliteRoot.root, url)).rejects.toThrow(/already holds 1 user\(s\): migrate-db only fills an empty database/);
      await expect(moveFactsToPostgres(sqliteRoot.root, "sqlite:///x.db")).rejects.toThrow(/--to must be a postgres:\/\/ URL/);
      await expect(moveFactsToPostgres(join(sqliteRoot.root, "not-a-root"), url)).rejects.toThrow(/facts.db does not exist: give --root the data root/);
      expect((await rowsOf(url, "users")).map((r) => r.user_id)).toEqual(["admin"]);
    } finally {
      await first.cleanup();
      await sqliteRoot.cleanup();
    }
  });
});
