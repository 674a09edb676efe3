// The CLI's read commands on a clustered root (servers on PostgreSQL; PENGUIN_DATABASE_URL set as
// for them): `penguin sessions` reads the read models the cluster keeps in the database, not a
// `<root>/projections.db` no server keeps current. Shown with the built CLI and a real PostgreSQL
// (apps/server's test helper): a title that only the database's sessions row holds (as a server
// node's projection pass would have written it) is what the command lists, and no SQLite file is
// made; without the variable the command reads the file, which does not have that title.
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

describe("read commands on a clustered root", { timeout: 120_000 }, () => {
  it("`penguin sessions` lists the database's read models when PENGUIN_DATABASE_URL names PostgreSQL", async () => {
    world = await startWorld({ script: [{ text: "done" }] });
    const run = await runCli(["run", "-m", "hello cluster", "--workspace", world.workspace], { env: world.env });
    expect(run.code, run.stderr).toBe(0);
    const sessionId = sessionIdFrom(run.stderr);
    const url = await server.createDatabase("cli_cluster_reads");
    const hadFile = existsSync(join(world.root, "projections.db"));

    // The cluster's read model: caught up with the traces, with a title only it holds.
    const store = await ProjectionStore.open({ file: url, root: world.root, projections: [sessionsProjection, usageProjection, timelineProjection] });
    try {
      await store.catchUp();
      await store.db.updateTable("sessions").set({ title: "kept by the cluster" }).where("session_id", "=", sessionId).execute();
    } finally {
      await store.close();
    }

    const clustered = await runCli(["sessions", "--json"], { env: { ...world.env, PENGUIN_DATABASE_URL: url } });
    expect(clustered.code, clustered.stderr).toBe(0);
    const listed = JSON.parse(clustered.stdout.trim()) as { total: number; sessions: { id: string; title: string | null }[] };
    expect(listed.sessions.map((s) => [s.id, s.title])).toEqual([[sessionId, "kept by the cluster"]]);
    expect(existsSync(join(world.root, "projections.db"))).toBe(hadFile);

    // Without the variable: the root's own file, which never had that title.
    const local = await runCli(["sessions", "--json"], { env: world.env });
    expect(local.code, local.stderr).toBe(0);
    expect((JSON.parse(local.stdout.trim()) as { sessions: { title: string | null }[] }).sessions[0]?.title).not.toBe("kept by the cluster");
  });

  it("`penguin projections rebuild` rebuilds the database's read models when PENGUIN_DATABASE_URL names PostgreSQL, as status reads them", async () => {
    world = await startWorld({ script: [{ text: "done" }] });
    const run = await runCli(["run", "-m", "hello rebuild", "--workspace", world.workspace], { env: world.env });
    expect(run.code, run.stderr).toBe(0);
    const sessionId = sessionIdFrom(run.stderr);
    const url = await server.createDatabase("cli_cluster_rebuild");
    const env = { ...world.env, PENGUIN_DATABASE_URL: url };
    const store = await ProjectionStore.open({ file: url, root: world.root, projections: [sessionsProjection, usageProjection, timelineProjection] });
    try {
      await store.catchUp();
      // A row the traces do not say: a rebuild of the database's schema replaces it.
      await store.db.updateTable("sessions").set({ title: "not in any trace" }).where("session_id", "=", sessionId).execute();
    } finally {
      await store.close();
    }
    const hadFile = existsSync(join(world.root, "projections.db"));

    const rebuilt = await runCli(["projections", "rebuild", "--json"], { env });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const listed = await runCli(["sessions", "--json"], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const sessions = (JSON.parse(listed.stdout.trim()) as { sessions: { id: string; title: string | null }[] }).sessions;
    expect(sessions.map((s) => s.id)).toEqual([sessionId]);
    expect(sessions[0]?.title).not.toBe("not in any trace");
    expect(existsSync(join(world.root, "projections.db"))).toBe(hadFile);
    const status = await runCli(["projections", "status", "--json"], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("sessions");
  });
});
