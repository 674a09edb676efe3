// Projections in PostgreSQL (a real one, helpers/postgres.ts): a server given --database keeps
// its read models in the `penguin_projections` schema, and `rebuildProjections` into that URL
// (what `penguin projections rebuild --database` runs) builds a fresh schema and swaps it in:
// the rebuilt tables equal the incrementally kept ones row for row (and a SQLite rebuild of the
// same root), while a build that fails or is killed mid-way leaves the previous tables serving.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildLockKey, ProjectionStore, rebuildProjections, type Projection } from "@penguin/projections-runner";
import { requestBegin, requestEnd, sessionMeta, userText } from "@penguin/omnimessage";
import { queryUsage, usageErrors } from "@penguin/projections-usage";
import { SERVER_PROJECTIONS } from "../src/services/projections.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";
import { dumpProjections, untilTitled } from "./helpers/projection-dump.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

const STALLED_REBUILD = fileURLToPath(new URL("./fixtures/stalled-rebuild.ts", import.meta.url));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const buildSchemas = async (url: string) => (await query<{ name: string }>(url, "select nspname as name from pg_namespace where nspname like 'penguin\\_projections\\_%' order by 1")).map((r) => r.name);

/** A server on PostgreSQL with two sessions run (one with a tool call, one failing request), its projections caught up. */
async function serverWithSessions(name: string): Promise<{ url: string; answers: () => Promise<unknown> }> {
  const url = await server.createDatabase(name);
  h = await startHarness({
    app: { database: url, projectionsPollMs: 20 },
    script: [
      { toolCalls: [{ name: "write_file", arguments: { file_path: "a.txt", content: "one" } }], usage: { input: 400, cached: 100, output: 12 } },
      { text: "done", usage: { input: 500, cached: 300, output: 5 } },
      { fault: { kind: "http", status: 400, body: "bad request" } },
      { text: "second", usage: { input: 200, cached: 0, output: 3 } },
    ],
  });
  const c = await h.admin();
  const first = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
  const sse = await openStream(c, first);
  await c.post(`/api/sessions/${first}/tasks`, text("write it"));
  await untilRunsEnded(sse, 1);
  await c.post(`/api/sessions/${first}/tasks`, text("this one fails"));
  await untilRunsEnded(sse, 2);
  await sse.close();
  const second = await newSession(c, { workspace: h.workspace });
  const sse2 = await openStream(c, second);
  await c.post(`/api/sessions/${second}/tasks`, text("another"));
  await untilRunsEnded(sse2, 1);
  await sse2.close();
  // The server titles each session after its run: wait for both titles, so no line is still to come.
  await untilTitled(h, [first, second]);
  const answers = async () => ({
    usage: (await c.get("/api/projects/default_project/usage?groupBy=session")).body,
    byDay: (await c.get("/api/projects/default_project/usage?groupBy=day")).body,
    errors: (await c.get("/api/projects/default_project/usage/errors")).body,
    list: (await c.get("/api/projects/default_project/agents/default_agent/sessions")).body.sessions.map((s: { id: string; lastActiveAt: number }) => [s.id, s.lastActiveAt]),
    viewer: (await c.get(`/api/sessions/${first}/analysis`)).body,
    state: (await c.get(`/api/sessions/${first}/state?at=001:000005`)).body,
  });
  return { url, answers };
}

describe("projections in PostgreSQL", { timeout: 120_000 }, () => {
  it("are kept in the penguin_projections schema, and a rebuild swapped in equals them row for row, as a SQLite rebuild of the root does", async () => {
    const { url, answers } = await serverWithSessions("proj_rebuild");
    const live = await h!.server.context.projections.store();
    expect(live.database.engine).toBe("postgres");
    const incremental = await dumpProjections(live);
    expect(incremental.sessions).toHaveLength(2);
    expect(incremental.usage_requests!.some((r) => r.includes('"status":"failed"'))).toBe(true);
    expect(incremental.timeline_tool_calls).toHaveLength(1);
    const before = await answers();
    expect((before as { usage: { rows: unknown[] } }).usage.rows).toHaveLength(2);

    // The same rebuild `penguin projections rebuild --database` runs, while the server keeps serving.
    const summary = await rebuildProjections({ root: h!.root, file: url, projections: SERVER_PROJECTIONS });
    expect(summary.events).toBeGreaterThan(20);
    expect(await buildSchemas(url)).toEqual([]);
    // The server's runner follows the swapped-in schema (a new oid): its next pass reopens it.
    await h!.server.context.projections.refresh();
    const after = await h!.server.context.projections.store();
    expect(await dumpProjections(after)).toEqual(incremental);
    expect(await answers()).toEqual(before);

    // One set of schemas and queries for both engines: a SQLite rebuild of the same traces holds the same rows.
    const dir = mkdtempSync(join(tmpdir(), "penguin-pg-vs-sqlite-"));
    try {
      await rebuildProjections({ root: h!.root, file: join(dir, "projections.db"), projections: SERVER_PROJECTIONS, parallel: false });
      const sqlite = await ProjectionStore.open({ root: h!.root, file: join(dir, "projections.db"), projections: SERVER_PROJECTIONS });
      expect(await dumpProjections(sqlite)).toEqual(incremental);
      // The queries too: usage buckets (spelt per engine), filters and failures answer alike on both.
      const today = new Date().toISOString().slice(0, 10);
      for (const granularity of ["minute", "hour", "day", "week", "month"] as const) {
        expect(await queryUsage(after.db, { fromDate: "2000-01-01", toDate: "2999-12-31" }, "day", () => undefined, granularity), granularity).toEqual(await queryUsage(sqlite.db, { fromDate: "2000-01-01", toDate: "2999-12-31" }, "day", () => undefined, granularity));
      }
      for (const by of ["model", "agent", "session"] as const) expect(await queryUsage(after.db, {}, by, () => undefined)).toEqual(await queryUsage(sqlite.db, {}, by, () => undefined));
      expect(await usageErrors(after.db, { fromDate: today }, 10, 0)).toEqual(await usageErrors(sqlite.db, { fromDate: today }, 10, 0));
      expect((await usageErrors(after.db, {}, 10, 0)).total).toBe(1);
      await sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a rebuild that fails leaves the previous tables serving and no build schema behind", async () => {
    const { url, answers } = await serverWithSessions("proj_failed");
    const incremental = await dumpProjections(await h!.server.context.projections.store());
    const before = await answers();
    const failing: Projection = {
      name: "failing",
      version: 1,
      handles: [],
      async migrate(db) {
        await db.schema.createTable("failing").addColumn("session_id", "text").execute();
      },
      async apply() {
        throw new Error("this projection fails mid-build");
      },
    };
    await expect(rebuildProjections({ root: h!.root, file: url, projections: [...SERVER_PROJECTIONS, failing] })).rejects.toThrow("fails mid-build");
    expect(await buildSchemas(url)).toEqual([]);
    await h!.server.context.projections.refresh();
    expect(await dumpProjections(await h!.server.context.projections.store())).toEqual(incremental);
    expect(await answers()).toEqual(before);
  });

  it("a rebuild killed mid-build (SIGKILL) leaves the previous tables serving; the next rebuild drops its leftover and swaps in", async () => {
    const { url, answers } = await serverWithSessions("proj_killed");
    const incremental = await dumpProjections(await h!.server.context.projections.store());
    const before = await answers();
    const child = spawn(process.execPath, ["--conditions=development", "--import", "tsx", STALLED_REBUILD, h!.root, url], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // Wait for the event itself: the child says which schema it is building, from inside a batch.
    const building = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const m = /building (\S+)\n/.exec(out);
        if (m !== null) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`the rebuild exited before building: ${err}`)));
    });
    expect(building).toMatch(/^penguin_projections_build_/);
    // Mid-build, the server still answers from the live schema.
    expect(await answers()).toEqual(before);
    child.kill("SIGKILL");
    await exited;

    // The killed build's schema is left over; the live one is untouched and still serves.
    expect(await buildSchemas(url)).toEqual([building]);
    await h!.server.context.projections.refresh();
    expect(await dumpProjections(await h!.server.context.projections.store())).toEqual(incremental);
    expect(await answers()).toEqual(before);

    // Once PostgreSQL has seen the killed process's connection go (its build lock freed), the next rebuild drops the leftover.
    await vi.waitFor(
      async () => {
        const [row] = await query<{ free: boolean }>(url, "select pg_try_advisory_lock($1::bigint) as free", [buildLockKey(building)]);
        expect(row?.free).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );
    await rebuildProjections({ root: h!.root, file: url, projections: SERVER_PROJECTIONS });
    expect(await buildSchemas(url)).toEqual([]);
    await h!.server.context.projections.refresh();
    expect(await dumpProjections(await h!.server.context.projections.store())).toEqual(incremental);
  });

  it("a NUL in trace text (PostgreSQL's text cannot hold it) is stored as U+FFFD instead of failing every batch", async () => {
    const url = await server.createDatabase("proj_nul");
    const root = mkdtempSync(join(tmpdir(), "penguin-pg-nul-"));
    try {
      const sid = "session-2026-01-02-10-00-00-0000abc1";
      const file = join(root, "default_project", "agents", "default_agent", "traces", "2026-01-02", `${sid}_001.jsonl`);
      mkdirSync(dirname(file), { recursive: true });
      const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 10, 0, s)).toISOString();
      const lines = [
        sessionMeta({ session_id: sid, provider: "fake", model_id: "m1", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" }, { at: at(0) }),
        userText("before\u0000after", { at: at(1) }),
        requestBegin({ at: at(2) }),
        requestEnd("failed", { error_message: "bad\u0000byte" }, { at: at(3) }),
      ];
      appendFileSync(file, lines.map((m) => `${JSON.stringify(m)}\n`).join(""));
      const store = await ProjectionStore.open({ root, file: url, projections: SERVER_PROJECTIONS });
      try {
        expect((await store.catchUp()).events).toBe(4);
        expect(await store.db.selectFrom("sessions").select("title").execute()).toEqual([{ title: "before\uFFFDafter" }]);
        expect(await store.db.selectFrom("usage_requests").select(["status", "error_message"]).execute()).toEqual([{ status: "failed", error_message: "bad\uFFFDbyte" }]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
