// `penguin projections rebuild --database postgres://…` and `status --database` (the built CLI)
// against a real PostgreSQL (apps/server's test helper: initdb in a temp folder, Unix socket):
// the read models of a CLI run are built into the database's penguin_projections schema and
// swapped in, status reports them caught up, `--only` rebuilds one, the SQLite file is left
// alone, and a value that is not a postgres:// URL is refused with what to give instead.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProjectionStore } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { timelineProjection } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";
import { startPostgres, type PostgresServer } from "../../server/test/helpers/postgres.js";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let server: PostgresServer;
let world: World | undefined;
beforeAll(async () => {
  await ensureBuilt();
  server = await startPostgres();
}, 300_000);
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** Runs `read` on the projections in the database's penguin_projections schema (the runner's own handle). */
async function inDatabase<T>(url: string, root: string, read: (db: ProjectionStore["db"]) => Promise<T>): Promise<T> {
  const store = await ProjectionStore.open({ file: url, root, projections: [sessionsProjection, usageProjection, timelineProjection] });
  try {
    return await read(store.db);
  } finally {
    await store.close();
  }
}

describe("penguin projections --database", { timeout: 120_000 }, () => {
  it("rebuilds a CLI run's read models into PostgreSQL and reports them caught up; --only rebuilds one; a non-URL is refused", async () => {
    world = await startWorld({ script: [{ text: "done", usage: { input: 300, cached: 100, output: 20 } }] });
    const env = world.env;
    const run = await runCli(["run", "-m", "count me", "--workspace", world.workspace], { env });
    expect(run.code).toBe(0);
    const sessionId = sessionIdFrom(run.stderr);
    const url = await server.createDatabase("cli_rebuild");
    const hadFile = existsSync(join(world.root, "projections.db"));

    const rebuild = await runCli(["projections", "rebuild", "--database", url, "--json"], { env });
    expect(rebuild.code, rebuild.stderr).toBe(0);
    const summary = JSON.parse(rebuild.stdout.trim());
    expect(summary).toMatchObject({ projections: ["sessions", "usage", "timeline"], files: 1, skipped: 0, threads: 1 });
    expect(summary.events).toBeGreaterThan(5);
    // The rows are in the database's schema; the data root's SQLite file is not what was built.
    expect(await inDatabase(url, world.root, (db) => db.selectFrom("sessions").select(["session_id", "requests"]).execute())).toEqual([{ session_id: sessionId, requests: 1 }]);
    expect(await inDatabase(url, world.root, (db) => db.selectFrom("usage_requests").select("status").execute())).toEqual([{ status: "completed" }]);
    expect(existsSync(join(world.root, "projections.db"))).toBe(hadFile);

    const status = await runCli(["projections", "status", "--database", url, "--json"], { env });
    expect(status.code).toBe(0);
    const statuses = status.stdout.trim().split("\n").map((l) => JSON.parse(l) as { name: string; files: number; events: number; lagFiles: number });
    expect(statuses.map((s) => [s.name, s.files, s.events, s.lagFiles])).toEqual([
      ["sessions", 1, summary.events, 0],
      ["usage", 1, summary.events, 0],
      ["timeline", 1, summary.events, 0],
    ]);

    const only = await runCli(["projections", "rebuild", "--only", "usage", "--database", url], { env });
    expect(only.code).toBe(0);
    expect(only.stdout).toMatch(/^rebuilt usage: \d+ events from 1 files/m);
    // The others were carried over into the swapped-in schema.
    expect(await inDatabase(url, world.root, (db) => db.selectFrom("sessions").select("session_id").execute())).toEqual([{ session_id: sessionId }]);
    // No build schema is left behind.
    expect(await inDatabase(url, world.root, (db) => db.selectFrom("pg_catalog.pg_namespace").select("nspname").where("nspname", "like", "penguin\\_projections%").orderBy("nspname").execute())).toEqual([{ nspname: "penguin_projections" }]);

    const wrong = await runCli(["projections", "rebuild", "--database", "mysql://db/penguin"], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--database "mysql://db/penguin": give a postgres:// URL');
  });
});
