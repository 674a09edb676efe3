// `penguin attach`: the built CLI follows a server session's stream while a task runs there.
// The server is real (the app on a socket, with its data root and a testkit model); the
// CLI prints the assistant text the trace records and the task state changes, resumes
// after the server drops its connection without losing or repeating what ran meanwhile,
// and Ctrl-C detaches without stopping the task, which is then still running on the server. The SSE
// parser it uses is checked on its own against the EventSource rules. Without a server it
// follows the local trace of a session a `penguin chat` runs, and ends when the chat lets it go.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { hostname } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServerApp, ManualTicker, type ServerApp } from "@penguin/server";
import { SseParser } from "../src/attach/sse-reader.js";
import { ensureBuilt } from "./helpers/build.js";
import { CLI_MAIN } from "./helpers/paths.js";
import { collectOutput, exited, runCli, spawnCli } from "./helpers/run-cli.js";
import { sessionIdFrom } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let app: ServerApp | undefined;
let http: Server | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await app?.close();
  if (http !== undefined) {
    http.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
  }
  await world?.cleanup();
  world = app = http = undefined;
});

const PASSWORD = "attach-test-password";

/** Polls a condition (a child process is involved, so between tries the event loop runs for a moment). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function call(base: string, cookie: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method, headers: { cookie, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
}

describe("penguin attach", { timeout: 60_000 }, () => {
  it("prints a running session's text and state as the trace gets them, resumes after a dropped connection without gaps, and Ctrl-C detaches leaving the task running", async () => {
    world = await startWorld({
      script: [
        { text: "first answer streamed to the terminal", chunkSize: 6 },
        { text: "second answer sent while the connection was down", chunkSize: 6 },
        { text: "still thinking about it", fault: { kind: "hang", afterEvents: 2 } },
      ],
    });
    app = await createServerApp({ root: world.root, env: {}, ticker: new ManualTicker(), generateTitles: false, sleep: async () => undefined, workspaceRoots: [world.workspace] });
    const server = app;
    const listening = createServer(server.app);
    http = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const login = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password: server.initialPassword }) });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await call(base, cookie, "PUT", "/api/me/password", { oldPassword: server.initialPassword, newPassword: PASSWORD })).status).toBe(204);
    const created = await call(base, cookie, "POST", "/api/projects/default_project/agents/default_agent/sessions", { workspace: world.workspace });
    expect(created.status).toBe(201);
    const sid: string = created.body.id;

    const child = spawnCli(["attach", sid, "--server", base], { env: { ...world.env, PENGUIN_PASSWORD: PASSWORD } });
    const out = collectOutput(child);
    await until(() => (server.context.sessions.peek(sid)?.channel.subscriberCount ?? 0) > 0 || child.exitCode !== null, "the CLI to subscribe");
    expect(child.exitCode, out.stderr()).toBeNull();

    expect((await call(base, cookie, "POST", `/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "say something" }] })).status).toBe(202);
    await until(() => out.stdout().includes("first answer streamed to the terminal") && out.stdout().includes("[idle]"), "the first answer");

    // The server drops the connection; a whole task runs while the CLI waits to reconnect,
    // and it comes back with Last-Event-ID to get exactly what it missed.
    server.context.sessions.peek(sid)?.channel.closeAll();
    expect((await call(base, cookie, "POST", `/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "say more" }] })).status).toBe(202);
    await until(() => out.stdout().includes("second answer sent while the connection was down") && out.stdout().split("[idle]").length > 2, "the replayed second answer");
    expect(out.stdout().split("second answer sent while the connection was down")).toHaveLength(2);
    await until(() => (server.context.sessions.peek(sid)?.channel.subscriberCount ?? 0) > 0, "the CLI to be subscribed again");

    expect((await call(base, cookie, "POST", `/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "and now think" }] })).status).toBe(202);
    await until(() => out.stdout().split("[running]").length > 3 && world!.kit.requests.length >= 3, "the third task to run");
    child.kill("SIGINT");
    expect((await exited(child)).code).toBe(0);
    expect(out.stdout()).toContain(`detached from ${sid}`);
    expect(server.context.sessions.peek(sid)?.state).toBe("running");
    expect((await call(base, cookie, "POST", `/api/sessions/${sid}/abort`)).status).toBe(202);

    // What was printed is what the trace recorded as the first answer.
    const history = await call(base, cookie, "GET", `/api/sessions/${sid}/messages`);
    const answers = history.body.messages.filter((m: any) => m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant").map((m: any) => m.payload.text);
    expect(answers[0]).toBe("first answer streamed to the terminal");
    expect(out.stdout()).toContain(answers[0]);
  });

  it("resumes from the trace when the server restarts under it: nothing missed, nothing twice, no resync", async () => {
    world = await startWorld({ script: [{ text: "before the restart", chunkSize: 5 }, { text: "after the restart", chunkSize: 5 }] });
    const open = async (port: number) => {
      const a = await createServerApp({ root: world!.root, env: {}, ticker: new ManualTicker(), generateTitles: false, sleep: async () => undefined, workspaceRoots: [world!.workspace] });
      const h = createServer(a.app);
      await new Promise<void>((resolve) => h.listen(port, "127.0.0.1", resolve));
      app = a;
      http = h;
      return { a, port: (h.address() as AddressInfo).port };
    };
    const first = await open(0);
    const base = `http://127.0.0.1:${first.port}`;
    const login = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password: first.a.initialPassword }) });
    let cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await call(base, cookie, "PUT", "/api/me/password", { oldPassword: first.a.initialPassword, newPassword: PASSWORD })).status).toBe(204);
    const sid: string = (await call(base, cookie, "POST", "/api/projects/default_project/agents/default_agent/sessions", { workspace: world.workspace })).body.id;
    const child = spawnCli(["attach", sid, "--server", base], { env: { ...world.env, PENGUIN_PASSWORD: PASSWORD } });
    const out = collectOutput(child);
    await until(() => (first.a.context.sessions.peek(sid)?.channel.subscriberCount ?? 0) > 0, "the CLI to subscribe");
    await call(base, cookie, "POST", `/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "one" }] });
    await until(() => out.stdout().includes("before the restart") && out.stdout().includes("[idle]"), "the first answer", out.stdout);

    // The server goes away and comes back on the same port and data root.
    await first.a.close();
    http!.closeAllConnections();
    await new Promise((resolve) => http!.close(resolve));
    const second = await open(first.port);
    const relogin = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password: PASSWORD }) });
    cookie = (relogin.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    await until(() => (second.a.context.sessions.peek(sid)?.channel.subscriberCount ?? 0) > 0, "the CLI to reconnect", out.stdout);
    expect((await call(base, cookie, "POST", `/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "two" }] })).status).toBe(202);
    await until(() => out.stdout().includes("after the restart") && out.stdout().split("[idle]").length > 2, "the answer after the restart", out.stdout);
    expect(out.stdout()).not.toContain("[resync]");
    expect(out.stdout().split("before the restart")).toHaveLength(2);
    expect(out.stdout().split("after the restart")).toHaveLength(2);
    child.kill("SIGINT");
    expect((await exited(child)).code).toBe(0);
  });

  it("answers an approval with y on stdin when the signed-in user may, and says so when another member may not", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_write01", arguments: { file_path: "approved.txt", content: "yes" } }] },
        { text: "written after the approval" },
      ],
    });
    app = await createServerApp({ root: world.root, env: {}, ticker: new ManualTicker(), generateTitles: false, sleep: async () => undefined, workspaceRoots: [world.workspace] });
    const server = app;
    const listening = createServer(server.app);
    http = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const login = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password: server.initialPassword }) });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await call(base, cookie, "PUT", "/api/me/password", { oldPassword: server.initialPassword, newPassword: PASSWORD })).status).toBe(204);
    expect((await call(base, cookie, "POST", "/api/admin/users", { userId: "member", password: "member-password" })).status).toBeLessThan(300);
    expect((await call(base, cookie, "POST", "/api/projects/default_project/members", { userId: "member" })).status).toBeLessThan(300);
    const created = await call(base, cookie, "POST", "/api/projects/default_project/agents/default_agent/sessions", { workspace: world.workspace, approvalMode: "always-ask" });
    const sid: string = created.body.id;

    // stdin stays open: the CLI reads answers from it as approvals come.
    const attachAs = (user: string, password: string) => {
      const child = spawn(process.execPath, [CLI_MAIN, "attach", sid, "--server", base, "--user", user], { env: { ...world!.env, PENGUIN_PASSWORD: password }, stdio: ["pipe", "pipe", "pipe"] });
      return { child, out: collectOutput(child) };
    };
    const owner = attachAs("admin", PASSWORD);
    await until(() => (server.context.sessions.peek(sid)?.channel.subscriberCount ?? 0) > 0 || owner.child.exitCode !== null, "the CLI to subscribe");
    expect((await call(base, cookie, "POST", `/api/sessions/${sid}/tasks`, { input: [{ type: "text", text: "write it" }] })).status).toBe(202);
    await until(() => owner.out.stdout().includes("[approval] write_file waits for a decision"), "the approval request", owner.out.stdout);

    // A member who did not create the session is shown the request but may not answer it.
    const memberLogin = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "member", password: "member-password" }) });
    const memberCookie = (memberLogin.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    await call(base, memberCookie, "PUT", "/api/me/password", { oldPassword: "member-password", newPassword: "member-password-2" });
    const member = attachAs("member", "member-password-2");
    await until(() => member.out.stdout().includes("[approval] write_file waits for a decision"), "the member's view of the request", () => member.out.stdout() + member.out.stderr());
    member.child.stdin?.write("y\n");
    await until(() => member.out.stdout().includes("member may not answer this session's approvals"), "the member's refusal", member.out.stdout);
    expect(server.context.sessions.peek(sid)?.approvals.pending()).toHaveLength(1);

    owner.child.stdin?.write("y\n");
    await until(() => owner.out.stdout().includes("written after the approval") && owner.out.stdout().includes("[idle]"), "the approved task to finish", owner.out.stdout);
    expect(readFileSync(join(world.workspace, "approved.txt"), "utf8")).toBe("yes");
    for (const w of [owner, member]) {
      w.child.kill("SIGINT");
      expect((await exited(w.child)).code).toBe(0);
    }
  });

  it("refuses clearly without a password, and with no server to reach", async () => {
    world = await startWorld();
    const noPassword = spawnCli(["attach", "session-2026-01-01-00-00-00-abcdef01", "--server", "http://127.0.0.1:9"], { env: world.env });
    const a = collectOutput(noPassword);
    expect((await exited(noPassword)).code).toBe(2);
    expect(a.stderr()).toContain("PENGUIN_PASSWORD");
    const noServer = spawnCli(["attach", "session-2026-01-01-00-00-00-abcdef01"], { env: { ...world.env, PENGUIN_PASSWORD: "x" } });
    const b = collectOutput(noServer);
    expect((await exited(noServer)).code).toBe(2);
    expect(b.stderr()).toContain("no server is reachable");
    expect(b.stderr()).toContain("holds no trace of session-2026-01-01-00-00-00-abcdef01");
  });

  it("follows a session a chat runs from its local trace, naming the chat, and ends when the chat lets it go", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "second answer" }] });
    const first = await runCli(["run", "-m", "first task", "--workspace", world.workspace], { env: world.env });
    expect(first.code).toBe(0);
    const sid = sessionIdFrom(first.stderr);
    const chat = spawn(process.execPath, [CLI_MAIN, "chat", "--resume", sid], { env: world.env, stdio: ["pipe", "pipe", "pipe"] });
    const chatOut = collectOutput(chat);
    await until(() => chatOut.stdout().includes(`session ${sid} (resumed)`), "the chat to hold the session");

    const attach = spawnCli(["attach", sid], { env: world.env });
    const out = collectOutput(attach);
    await until(() => out.stdout().includes("first answer"), "the recorded answer");
    expect(out.stdout()).toContain(`run by pid ${chat.pid} on host ${hostname()} (penguin chat) since `);
    chat.stdin!.write("second task\n");
    await until(() => out.stdout().includes("second answer"), "the chat's next answer, live");
    chat.stdin!.end();
    expect((await exited(chat)).code).toBe(0);
    expect((await exited(attach)).code).toBe(0);
    expect(out.stdout()).toContain(`[ended] penguin chat (pid ${chat.pid}) no longer runs ${sid}`);
  });
});

describe("the attach SSE parser", () => {
  it("splits at CR, LF and CRLF (also across chunks), keeps the last id, reads retry, and dispatches nothing without data", () => {
    const p = new SseParser();
    expect(p.push("retry: 2000\n: connected\n\n")).toEqual([]);
    expect(p.retryMs).toBe(2000);
    const events = [...p.push("id: 7\nevent: server_event\ndata: {\"a\":1}\r"), ...p.push("\n\r\ndata: one\rdata: two\r\n\r\n")];
    expect(events).toEqual([
      { event: "server_event", data: '{"a":1}', id: "7" },
      { event: "message", data: "one\ntwo", id: undefined },
    ]);
    expect(p.lastEventId).toBe("7");
  });
});
