// The CLI following the read models and a session without a server, and with one:
// `penguin sessions --watch` prints a new session row when a CLI run finishes (from a real
// server's user feed, and, with no server reachable, from the local traces, saying so);
// `penguin usage --watch` prints the new totals; `penguin attach` with no server follows the
// session's local trace, printing what a later run appends, and Ctrl-C detaches.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAgent, listTracedSessions } from "@penguin/core";
import { createServerApp, ManualTicker, type ServerApp } from "@penguin/server";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let app: ServerApp | undefined;
let http: Server | undefined;
const children: ReturnType<typeof spawnCli>[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await exited(c);
  }
  await app?.close();
  if (http !== undefined) {
    http.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
  }
  await world?.cleanup();
  world = app = http = undefined;
});

/** Polls a condition (child processes are involved, so between tries the event loop runs for a moment). */
async function until(check: () => boolean, what: string, output?: () => string): Promise<void> {
  for (let i = 0; i < 2400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}${output === undefined ? "" : `; output:\n${output()}`}`);
}

function spawnWatched(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawnCli(args, { env });
  children.push(child);
  return { child, out: collectOutput(child) };
}

const PASSWORD = "watch-test-password";
const SESSION_ID = /session-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f]{8}/;

describe("penguin sessions --watch and usage --watch", { timeout: 120_000 }, () => {
  it("prints the new session row when a CLI run finishes, from a running server's feed", async () => {
    world = await startWorld({ script: [{ text: "answered while the server watched", usage: { input: 100, output: 10 } }] });
    app = await createServerApp({ root: world.root, env: {}, ticker: new ManualTicker(), generateTitles: false, sleep: async () => undefined, workspaceRoots: [world.workspace], projectionsPollMs: 50 });
    const server = app;
    const listening = createServer(server.app);
    http = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const login = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password: server.initialPassword }) });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const changed = await fetch(`${base}/api/me/password`, { method: "PUT", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ oldPassword: server.initialPassword, newPassword: PASSWORD }) });
    expect(changed.status).toBe(204);

    const env = { ...world.env, PENGUIN_PASSWORD: PASSWORD };
    const sessions = spawnWatched(["sessions", "--watch", "--server", base], env);
    const usage = spawnWatched(["usage", "--watch", "--server", base], env);
    await until(() => sessions.out.stdout().includes(`watching the sessions of default_project on ${base}`), "the sessions watcher", sessions.out.stderr);
    await until(() => usage.out.stdout().includes(`watching the usage of default_project on ${base}`), "the usage watcher", usage.out.stderr);
    await until(() => server.context.userEvents.channel("admin").subscriberCount >= 2, "both watchers to subscribe");

    const run = await runCli(["run", "-m", "say it", "--workspace", world.workspace], { env: world.env });
    expect(run.code, run.stderr).toBe(0);
    const traced = listTracedSessions((await createAgent({ root: world.root, env: {} })).paths);
    expect(traced).toHaveLength(1);
    const sid = traced[0]!.sessionId;
    expect(sid).toMatch(SESSION_ID);
    await until(() => new RegExp(`new\\s+${sid}`).test(sessions.out.stdout()) && new RegExp(`${sid}\\s+done`).test(sessions.out.stdout()), "the new session's row", sessions.out.stdout);
    await until(() => /usage of default_project: 1 requests/.test(usage.out.stdout()), "the new usage totals", usage.out.stdout);

    for (const w of [sessions, usage]) {
      w.child.kill("SIGINT");
      expect((await exited(w.child)).code).toBe(0);
      expect(w.out.stdout()).toContain("stopped watching");
    }
  });

  it("with no server reachable, says so and follows the local traces and projections", async () => {
    world = await startWorld({ script: [{ text: "answered with nobody serving", usage: { input: 100, output: 10 } }] });
    const sessions = spawnWatched(["sessions", "--watch"], world.env);
    const usage = spawnWatched(["usage", "--watch"], world.env);
    await until(() => sessions.out.stdout().includes("no server is reachable: watching the sessions of default_project from the local traces and projections"), "the local sessions watcher", sessions.out.stderr);
    await until(() => usage.out.stdout().includes("no server is reachable: watching the usage of default_project from the local traces and projections"), "the local usage watcher", usage.out.stderr);

    const run = await runCli(["run", "-m", "say it", "--workspace", world.workspace], { env: world.env });
    expect(run.code, run.stderr).toBe(0);
    // The row may show up while the run is still going (new), then change (upd) until it is done.
    await until(() => /new\s+session-\S+/.test(sessions.out.stdout()), "the new session's row", sessions.out.stdout);
    const sid = /new\s+(session-\S+)/.exec(sessions.out.stdout())![1]!;
    await until(() => new RegExp(`${sid}\\s+done`).test(sessions.out.stdout()), "the session's row, done", sessions.out.stdout);
    await until(() => /usage of default_project: 1 requests/.test(usage.out.stdout()), "the new usage totals", usage.out.stdout);
    for (const w of [sessions, usage]) {
      w.child.kill("SIGINT");
      expect((await exited(w.child)).code).toBe(0);
    }
  });
});

describe("penguin attach without a server", { timeout: 120_000 }, () => {
  it("follows the session's local trace: what it holds, then what a later run appends; Ctrl-C detaches", async () => {
    world = await startWorld({ script: [{ text: "the first answer, already in the trace" }, { text: "the second answer, appended while attached" }] });
    const agent = await createAgent({ root: world.root, env: {} });
    const session = await agent.createSession({ workspaceDir: world.workspace });
    for await (const _m of session.run("first")) void _m;
    await session.dispose();

    const attach = spawnWatched(["attach", session.id], { ...world.env, PENGUIN_PASSWORD: "unused-without-a-server" });
    await until(() => attach.out.stdout().includes(`no server is reachable: following the local trace of ${session.id}`), "the local attach", attach.out.stderr);
    await until(() => attach.out.stdout().includes("the first answer, already in the trace"), "the recorded answer", attach.out.stdout);
    expect(attach.out.stdout()).not.toContain("the second answer");

    const resumed = await agent.resumeSession({ sessionId: session.id });
    for await (const _m of resumed.run("second")) void _m;
    await resumed.dispose();
    await until(() => attach.out.stdout().includes("the second answer, appended while attached"), "the appended answer", attach.out.stdout);
    expect(attach.out.stdout().split("the first answer, already in the trace")).toHaveLength(2);

    attach.child.kill("SIGINT");
    expect((await exited(attach.child)).code).toBe(0);
    expect(attach.out.stdout()).toContain(`detached from ${session.id}`);
  });
});
