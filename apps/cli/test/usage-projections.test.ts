// `penguin usage`, `penguin projections rebuild|status` against real runs (no server): the
// usage of a session run by the CLI equals the sum of its token_usage lines, and deleting
// projections.db then rebuilding gives the same answers.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

function tokenSums(root: string, sessionId: string) {
  const sums = { cacheRead: 0, cacheWrite: 0, output: 0, total: 0, requests: 0 };
  for (const m of traceMessages(root, sessionId)) {
    if (m.type !== "event_msg" || m.payload.type !== "token_usage") continue;
    sums.cacheRead += m.payload.request.cache_read;
    sums.cacheWrite += m.payload.request.cache_write;
    sums.output += m.payload.request.output;
    sums.total += m.payload.request.total;
    sums.requests += 1;
  }
  return sums;
}

describe("penguin usage / projections", { timeout: 90_000 }, () => {
  it("counts a CLI run exactly as its token_usage lines say, and a rebuild gives the same answers", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "exec_command", id: "call_use001", arguments: { cmd: "echo usage", description: "echo" } }], usage: { input: 1000, cached: 400, output: 100 } },
        { text: "first done", usage: { input: 2000, cached: 1000, output: 50 } },
        { text: "second done", usage: { input: 300, cached: 0, output: 30 } },
      ],
    });
    const env = world.env;
    const first = await runCli(["run", "--approve", "allow-all", "-m", "first", "--workspace", world.workspace], { env });
    expect(first.code).toBe(0);
    const second = await runCli(["run", "-m", "second", "--workspace", world.workspace], { env });
    expect(second.code).toBe(0);
    const ids = [sessionIdFrom(first.stderr), sessionIdFrom(second.stderr)];
    const byHand = ids.map((id) => tokenSums(world!.root, id));

    const usage = await runCli(["usage", "--json", "--by", "session"], { env });
    expect(usage.code).toBe(0);
    const lines = usage.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    for (const [i, id] of ids.entries()) {
      const row = report.rows.find((r: { key: string }) => r.key === id);
      expect(row).toMatchObject({ cacheRead: byHand[i]!.cacheRead, cacheWrite: byHand[i]!.cacheWrite, output: byHand[i]!.output, total: byHand[i]!.total, requests: byHand[i]!.requests, failures: 0 });
    }
    expect(report.totals.total).toBe(byHand[0]!.total + byHand[1]!.total);
    // uncached 600 + 1000 + 300 at $1, cached 400 + 1000 at $0.1, output 100 + 50 + 30 at $2 per Mtok: $0.0024
    expect(report.totals.costText).toBe("$0.0024");

    const table = await runCli(["usage", "--by", "model", "--since", "1d"], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^MODEL\s+REQUESTS\s+FAILED\s+INPUT\s+CACHED\s+OUTPUT\s+TOTAL\s+COST$/m);
    expect(table.stdout).toMatch(/^testkit\/scripted-model\s+3\s+0\s+/m);
    expect(table.stdout).toMatch(/^total\s+3\s+0\s+.*\$0\.0024$/m);

    const status = await runCli(["projections", "status", "--json"], { env });
    const statuses = status.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(statuses.map((s: { name: string; files: number; lagFiles: number; skipped: number }) => [s.name, s.files, s.lagFiles, s.skipped])).toEqual([
      ["sessions", 2, 0, 0],
      ["usage", 2, 0, 0],
      ["timeline", 2, 0, 0],
    ]);

    const listBefore = (await runCli(["sessions"], { env })).stdout;
    rmSync(join(world.root, "projections.db"));
    const rebuild = await runCli(["projections", "rebuild"], { env });
    expect(rebuild.code).toBe(0);
    expect(rebuild.stdout).toMatch(/^rebuilt sessions, usage, timeline: \d+ events from 2 files, 0 skipped lines, in \d+\.\d\ds \(.+ events\/s\)$/m);
    expect(rebuild.stderr).toMatch(/rebuilding: 2\/2 files/);
    expect(existsSync(join(world.root, "projections.db"))).toBe(true);
    const again = JSON.parse((await runCli(["usage", "--json", "--by", "session"], { env })).stdout);
    expect(again).toEqual(report);
    expect((await runCli(["sessions"], { env })).stdout).toBe(listBefore);

    const only = await runCli(["projections", "rebuild", "--only", "usage"], { env });
    expect(only.stdout).toMatch(/^rebuilt usage: /m);
    const wrong = await runCli(["projections", "rebuild", "--only", "nope"], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--only "nope": no projection named so; choose one of sessions, usage, timeline');
  });

  it("--threads fixes a full rebuild's thread count; one and two threads give the same rows", async () => {
    world = await startWorld({
      script: [
        { text: "one", usage: { input: 500, cached: 100, output: 20 } },
        { text: "two", usage: { input: 800, cached: 300, output: 30 } },
      ],
    });
    const env = world.env;
    for (const m of ["one", "two"]) expect((await runCli(["run", "-m", m, "--workspace", world.workspace], { env })).code).toBe(0);
    const dbFile = join(world.root, "projections.db");
    // Every table's rows, sorted, from the swapped-in file (the two builds may insert in different orders).
    const allRows = () => {
      const db = new Database(dbFile, { readonly: true });
      try {
        const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").pluck().all() as string[];
        return Object.fromEntries(tables.map((t) => [t, db.prepare(`select * from "${t}"`).all().map((row) => JSON.stringify(row)).sort()]));
      } finally {
        db.close();
      }
    };
    const summaryOf = async (threads: string) => {
      const r = await runCli(["projections", "rebuild", "--threads", threads, "--json"], { env });
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout.trim());
    };
    // Two sessions make two runs of work, so two threads split them even below the automatic threshold.
    const two = await summaryOf("2");
    expect(two).toMatchObject({ files: 2, skipped: 0, threads: 2 });
    const rowsOfTwo = allRows();
    const one = await summaryOf("1");
    expect(one).toMatchObject({ files: 2, skipped: 0, threads: 1, events: two.events });
    expect(allRows()).toEqual(rowsOfTwo);

    const bad = await runCli(["projections", "rebuild", "--threads", "4"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--threads "4": give 1 or 2');
    const withOnly = await runCli(["projections", "rebuild", "--threads", "2", "--only", "usage"], { env });
    expect(withOnly.code).toBe(2);
    expect(withOnly.stderr).toContain("--threads 2 applies to a full rebuild");
  });

  it("a CLI session (no server running) shows later in the server's usage API and session list with the same totals", async () => {
    world = await startWorld({
      script: [
        { text: "cli answer", usage: { input: 1200, cached: 200, output: 40 } },
        { text: "while the server runs", usage: { input: 700, cached: 300, output: 9 } },
      ],
    });
    const env = world.env;
    const run = await runCli(["run", "-m", "from the cli", "--workspace", world.workspace], { env });
    expect(run.code).toBe(0);
    const sid = sessionIdFrom(run.stderr);
    const byHand = tokenSums(world.root, sid);
    const cli = JSON.parse((await runCli(["usage", "--json", "--by", "session"], { env })).stdout);
    expect(cli.rows).toEqual([expect.objectContaining({ key: sid, total: byHand.total, requests: byHand.requests })]);

    const server = spawnCli(["server", "--port", "0"], { env });
    const out = collectOutput(server);
    try {
      for (let i = 0; i < 800 && !out.stdout().includes("└"); i++) await new Promise((r) => setTimeout(r, 25));
      const url = /URL:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out.stdout())?.[1];
      const password = /(penguin-[a-z0-9]{4}(?:-[a-z0-9]{4})+)/.exec(out.stdout())?.[1];
      expect(url).toBeDefined();
      const login = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password }) });
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
      // The server holds every other route until the initial password is changed.
      const changed = await fetch(`${url}/api/me/password`, { method: "PUT", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ oldPassword: password, newPassword: password }) });
      expect(changed.status).toBe(204);
      const api = async (path: string) => (await fetch(`${url}${path}`, { headers: { cookie } })).json();
      const usage = await api("/api/projects/default_project/usage?groupBy=session");
      expect(usage.rows).toEqual([expect.objectContaining({ key: sid, cacheRead: byHand.cacheRead, cacheWrite: byHand.cacheWrite, output: byHand.output, total: byHand.total, requests: byHand.requests })]);
      expect(usage.totals.costText).toBe(cli.totals.costText);
      const list = await api("/api/projects/default_project/agents/default_agent/sessions");
      expect(list.sessions.map((s: { id: string }) => s.id)).toContain(sid);

      // A CLI session run while the server runs counts too, without the server running it.
      const during = await runCli(["run", "-m", "while it runs", "--workspace", world.workspace], { env });
      expect(during.code).toBe(0);
      const duringId = sessionIdFrom(during.stderr);
      const after = await api("/api/projects/default_project/usage?groupBy=session");
      expect(after.rows.find((r: { key: string }) => r.key === duringId)).toMatchObject({ total: tokenSums(world.root, duringId).total });
      // …and appears in the session list once the server's runner has followed its trace.
      let listed: string[] = [];
      for (let i = 0; i < 800 && !listed.includes(duringId); i++) {
        listed = (await api("/api/projects/default_project/agents/default_agent/sessions")).sessions.map((s: { id: string }) => s.id);
        if (!listed.includes(duringId)) await new Promise((r) => setTimeout(r, 25));
      }
      expect(listed).toContain(duringId);
      const cliAfter = JSON.parse((await runCli(["usage", "--json", "--by", "session"], { env })).stdout);
      expect(cliAfter.totals).toEqual(after.totals);
    } finally {
      server.kill("SIGTERM");
      await exited(server);
    }
  });

  it("refuses an offline rebuild while a server runs on the root, and rejects bad flags", async () => {
    world = await startWorld();
    writeFileSync(join(world.root, "server.lock"), JSON.stringify({ pid: process.pid, port: null, host: "127.0.0.1", startedAt: new Date().toISOString() }));
    const r = await runCli(["projections", "rebuild"], { env: world.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`a server is running on ${world.root} (pid ${process.pid})`);
    const since = await runCli(["usage", "--since", "yesterday"], { env: world.env });
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since "yesterday" is not understood');
    const by = await runCli(["usage", "--by", "week"], { env: world.env });
    expect(by.code).toBe(2);
    expect(by.stderr).toContain('--by "week" is not one of day, model, agent, session');
  });
});
