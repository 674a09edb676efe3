// The server as a process: the startup notice on a fresh root, one server per data root
// (attach for `web`, refuse for `server`, take over a stale lock), graceful SIGTERM (tasks
// aborted with their carry-over, traces closed, lock released), and a SIGKILL mid-task after
// which a restart resumes the session from its trace with its usage rows intact.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { parseTraceText } from "@penguin/core";
import { ApiClient } from "./helpers/client.js";
import { spawnServer, StartedServers, type ServerChild } from "./helpers/child.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, endsWithToolResult, lastUserText } from "./helpers/model.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { messagesOf } from "./helpers/sse.js";

const started = new StartedServers();
const tempDir = (prefix: string) => started.tempDir(prefix);
let kit: Testkit | undefined;

afterEach(async () => {
  await kit?.close();
  kit = undefined;
  await started.cleanup();
});

function start(root: string, extra: string[] = []): ServerChild {
  const child = spawnServer(["--root", root, "--port", "0", "--no-open", "--workspace-root", tmpdir(), ...extra]);
  started.track(child);
  return child;
}

/** The admin password per root: read from the initial file once (signing in "changes" it, which removes the file). */
const passwords = new Map<string, string>();

async function signIn(url: string, root: string): Promise<ApiClient> {
  const c = new ApiClient((u, init) => fetch(u, init), url);
  const password = passwords.get(root) ?? readFileSync(join(root, "initial-admin-password"), "utf8").trim();
  passwords.set(root, password);
  await c.signIn("admin", password);
  return c;
}

describe("the server process", () => {
  it("prints its URL and the framed initial password on a fresh data root, and stops cleanly on SIGTERM", { timeout: 60_000 }, async () => {
    const root = tempDir("penguin-proc-");
    const child = start(root);
    const url = await child.url();
    await child.line(/└/);
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    const notice = child.out.join("\n");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(notice).toContain(password);
    expect(child.out.filter((l) => l.startsWith("┌") || l.startsWith("└"))).toHaveLength(2);
    expect(child.out.filter((l) => l.startsWith("│")).every((l) => l.endsWith("│"))).toBe(true);
    const lock = JSON.parse(readFileSync(join(root, "server.lock"), "utf8"));
    expect(lock).toMatchObject({ pid: child.proc.pid, port: Number(new URL(url).port), host: "127.0.0.1" });
    expect((await fetch(`${url}/api/version`)).status).toBe(200);

    // One server per root: `server` refuses, `web` attaches and exits 0.
    const second = start(root);
    expect(await second.exited).toBe(1);
    expect(second.err.join("\n")).toMatch(/already running .* at http:\/\/127\.0\.0\.1:\d+/);
    const web = start(root, ["--web"]);
    expect(await web.exited).toBe(0);
    expect(web.out.join("\n")).toContain(`already running at ${url}`);

    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(existsSync(join(root, "server.lock"))).toBe(false);

    // The notice repeats on the next start while the password is unchanged.
    const again = start(root);
    await again.line(/└/);
    expect(again.out.join("\n")).toContain(password);
  });

  it("takes over a stale lock left by a dead process", { timeout: 60_000 }, async () => {
    const root = tempDir("penguin-stale-");
    writeFileSync(join(root, "server.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, port: 1, host: "127.0.0.1", startedAt: "2020-01-01T00:00:00Z" }));
    const child = start(root);
    await child.url();
    expect(JSON.parse(readFileSync(join(root, "server.lock"), "utf8")).pid).toBe(child.proc.pid);
  });

  it("aborts a running task with its carry-over on SIGTERM", { timeout: 60_000 }, async () => {
    kit = await startTestkit({ script: [{ text: "never finishes", fault: { kind: "hang", afterEvents: 1 } }] });
    const root = tempDir("penguin-term-");
    const workspace = tempDir("penguin-term-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const child = start(root);
    const c = await signIn(await child.url(), root);
    const sid = await newSession(c, { workspace });
    await c.post(`/api/sessions/${sid}/tasks`, text("work forever"));
    await kit.waitForRequests(1);
    const tracePath: string = (await c.get(`/api/sessions/${sid}`)).body.tracePath;
    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    const trace = parseTraceText(readFileSync(tracePath, "utf8")).messages;
    const last = trace.at(-1);
    expect(last?.type === "event_msg" && last.payload.type).toBe("abort");
    expect(trace.some((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text === "work forever")).toBe(true);
  });

  it("survives SIGKILL mid-task: the session resumes from its trace and usage of completed requests is kept", { timeout: 60_000 }, async () => {
    kit = await startTestkit();
    let killed = false;
    enqueueSmart(kit, 10, (r) => {
      const prompt = lastUserText(r);
      if (prompt === "continue") {
        const remembers = r.messages.some((m) => m.text === "step one") && r.messages.some((m) => m.kind === "tool_result" && /^Created/.test(m.text ?? ""));
        return { text: remembers ? "resumed with history" : "lost history" };
      }
      if (endsWithToolResult(r) && !killed) return { text: "…", fault: { kind: "hang", afterEvents: 1 } };
      return { toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1" } }], usage: { input: 1000, cached: 200, output: 50 } };
    });
    const root = tempDir("penguin-kill-");
    const workspace = tempDir("penguin-kill-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const first = start(root);
    const c1 = await signIn(await first.url(), root);
    // Not about approvals: the write runs without asking (web sessions start read-only).
    const sid = await newSession(c1, { workspace, approvalMode: "allow-all" });
    await c1.post(`/api/sessions/${sid}/tasks`, text("step one"));
    // Wait for the request after the tool output (the one that hangs); a title request may come first.
    for (let n = 2; !kit.requests.some(endsWithToolResult); n++) await kit.waitForRequests(n);
    for (let i = 0; i < 500; i++) {
      const usage = await c1.get("/api/projects/default_project/usage?groupBy=session");
      if (usage.body.totals.requests === 1) break;
    }
    expect((await c1.get("/api/projects/default_project/usage?groupBy=session")).body.totals).toMatchObject({ requests: 1, cacheRead: 200, cacheWrite: 800, output: 50 });
    first.proc.kill("SIGKILL");
    await first.exited;
    killed = true;
    expect(existsSync(join(root, "server.lock"))).toBe(true);

    const second = start(root);
    const c2 = await signIn(await second.url(), root);
    const usage = await c2.get("/api/projects/default_project/usage?groupBy=session");
    expect(usage.body.rows).toEqual([expect.objectContaining({ key: sid, requests: 1, cacheRead: 200, cacheWrite: 800, output: 50, total: 1050 })]);
    const info = await c2.get(`/api/sessions/${sid}`);
    expect(info.status).toBe(200);
    expect(info.body.hasTrace).toBe(true);
    const sse = await openStream(c2, sid);
    expect((await c2.post(`/api/sessions/${sid}/tasks`, text("continue"))).status).toBe(202);
    await untilRunsEnded(sse, 1);
    const answers = messagesOf(sse.events).filter((m) => m.payload?.type === "text" && m.payload.role === "assistant").map((m) => m.payload.text);
    expect(answers).toEqual(["resumed with history"]);
    await sse.close();
    expect(readFileSync(join(workspace, "one.txt"), "utf8")).toBe("1");
  });
});
