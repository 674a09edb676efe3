// The whole flow over a real socket, as a browser or curl would drive it: sign in (cookie),
// create a session on a model entry that points at the testkit, post a task and stream its
// SSE to the end while approving a tool call in always-ask mode, abort a second task, and
// reconnect mid-stream with Last-Event-ID to receive exactly the missed events.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ManualTicker } from "../src/runtime/clock.js";
import { startServer, type RunningServer } from "../src/start.js";
import { ApiClient } from "./helpers/client.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, endsWithToolResult, lastUserText } from "./helpers/model.js";
import { newSession, openStream, runsEnded, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, messagesOf, seqOf } from "./helpers/sse.js";

let kit: Testkit | undefined;
let server: RunningServer | undefined;
let root: string | undefined;
let workspace: string | undefined;

afterEach(async () => {
  await server?.close();
  await kit?.close();
  for (const dir of [root, workspace]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  server = kit = root = workspace = undefined;
});

const STREAMED = "streaming-".repeat(30);

describe("end to end over HTTP", () => {
  it("signs in, runs, approves, aborts and resumes a stream with Last-Event-ID", async () => {
    kit = await startTestkit();
    enqueueSmart(
      kit,
      20,
      (r) => {
        if (endsWithToolResult(r)) return { text: "written" };
        const prompt = lastUserText(r);
        if (prompt === "write hello") return { toolCalls: [{ name: "write_file", arguments: { file_path: "hello.txt", content: "hello from the model" } }] };
        if (prompt === "hang please") return { text: "partial", fault: { kind: "hang", afterEvents: 2 } };
        return { text: STREAMED, chunkSize: 6, delayMs: 2 };
      },
      "Writing Hello",
    );
    root = mkdtempSync(join(tmpdir(), "penguin-e2e-"));
    workspace = mkdtempSync(join(tmpdir(), "penguin-e2e-ws-"));
    configureProject(root, "default_project", modelEntry(kit));
    const lines: string[] = [];
    server = await startServer({ root, port: 0, host: "127.0.0.1", env: {}, sleep: async () => undefined, out: (l) => lines.push(l), app: { ticker: new ManualTicker(), generateTitles: true, workspaceRoots: [workspace] } });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines.join("\n")).toContain(server.url);
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    expect(lines.join("\n")).toContain(password);

    const c = new ApiClient((url, init) => fetch(url, init), server.url);
    expect((await c.get("/api/me")).status).toBe(401);
    await c.signIn("admin", password);
    expect((await c.get("/api/me")).body.user.userId).toBe("admin");

    // 1. A task with a tool call, approved in always-ask mode, streamed to the end.
    const sid = await newSession(c, { workspace, approvalMode: "always-ask" });
    const full = await openStream(c, sid);
    expect((await c.post(`/api/sessions/${sid}/tasks`, text("write hello"))).status).toBe(202);
    const ask = dataOf(await untilServerEvent(full, "approval_request"));
    expect(ask.toolCall).toMatchObject({ name: "write_file" });
    expect((await c.post(`/api/sessions/${sid}/approvals/${ask.toolCallId}`, { decision: "allow" })).status).toBe(204);
    await untilRunsEnded(full, 1);
    expect(readFileSync(join(workspace, "hello.txt"), "utf8")).toBe("hello from the model");
    const firstRun = messagesOf(full.events).map((m) => (m.type === "event_msg" ? m.payload.type : `${m.payload.type}${m.payload.role ? `:${m.payload.role}` : ""}`)).filter((s) => !s.startsWith("partial"));
    expect(firstRun).toEqual(expect.arrayContaining(["text:user", "tool_call:assistant", "approval_decision", "tool_call_output:user", "text:assistant", "token_usage"]));
    await untilServerEvent(full, "session_title");
    expect((await c.get(`/api/sessions/${sid}`)).body.title).toBe("Writing Hello");

    // 2. A second task that hangs in the model, aborted.
    const before = kit.requests.length;
    await c.post(`/api/sessions/${sid}/tasks`, text("hang please"));
    await kit.waitForRequests(before + 1);
    const aborted = await c.post(`/api/sessions/${sid}/abort`);
    expect(aborted.status).toBe(202);
    await untilRunsEnded(full, 2);
    const abortEvent = messagesOf(full.events).find((m) => m.payload?.type === "abort");
    expect(abortEvent?.payload.reason).toContain("aborted");

    // 3. A paced task; one client drops mid-stream and comes back with Last-Event-ID.
    const dropping = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("stream please"));
    const midway = await dropping.until((_e, all) => {
      const ms = messagesOf(all);
      return ms.filter((m) => m.payload?.type === "partial_text" && m.payload.event_type === "delta").length >= 5;
    });
    await dropping.close();
    await untilRunsEnded(full, 3);
    expect(midway.id).toBeDefined();
    const back = await openStream(c, sid, midway.id);
    const snapshot = await back.until((e) => e.id === undefined && e.event === "server_event" && dataOf(e).type === "task_state");
    const replayed = back.events.slice(0, back.events.indexOf(snapshot));
    const missed = full.events.filter((e) => e.id !== undefined && seqOf(e.id) > seqOf(midway.id));
    expect(replayed.map((e) => e.id)).toEqual(missed.map((e) => e.id));
    expect(replayed.map((e) => e.data)).toEqual(missed.map((e) => e.data));
    expect(new Set(replayed.map((e) => e.id)).size).toBe(replayed.length);
    const finalText = messagesOf(full.events).filter((m) => m.payload?.type === "text" && m.payload.role === "assistant").at(-1);
    expect(finalText?.payload.text).toBe(STREAMED);
    expect(dataOf(snapshot).state).toBe("idle");
    expect(runsEnded(full.events)).toBe(3);
    await back.close();
    await full.close();

    // The history agrees with what streamed.
    const history = await c.get(`/api/sessions/${sid}/messages`);
    expect(history.body.messages.filter((m: any) => m.payload?.type === "text").map((m: any) => m.payload.text)).toEqual(expect.arrayContaining(["write hello", "written", "hang please", "stream please", STREAMED]));
    expect(existsSync(join(root, "server.lock"))).toBe(true);
    await server.close();
    expect(existsSync(join(root, "server.lock"))).toBe(false);
  });
});
