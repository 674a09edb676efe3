// The follow-up queue is the trace's: given a task waiting on an approval and two follow-ups
// queued behind it (each a `followup_queued` record), when the server is SIGKILLed and started
// again on the same root, then the new server finds the queue in the trace and runs both
// follow-ups, in the order they were queued, each one recorded as started.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, parseTraceText, sessionTraceFiles } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { ApiClient } from "./helpers/client.js";
import { spawnServer, StartedServers, type ServerChild } from "./helpers/child.js";
import { configureProject, eventually, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, lastUserText } from "./helpers/model.js";
import { newSession, openStream, text, untilServerEvent } from "./helpers/session.js";

const started = new StartedServers();
let kit: Testkit | undefined;

afterEach(async () => {
  await kit?.close();
  kit = undefined;
  await started.cleanup();
});

function start(root: string): ServerChild {
  return started.track(spawnServer(["--root", root, "--port", "0", "--no-open", "--workspace-root", tmpdir()]));
}

async function signIn(url: string, password: string): Promise<ApiClient> {
  const c = new ApiClient((u, init) => fetch(u, init), url);
  await c.signIn("admin", password);
  return c;
}

function traceOf(root: string, sid: string): OmniMessage[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).flatMap((f) => parseTraceText(readFileSync(f.file, "utf8")).messages);
}

const userTexts = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "user" && m.payload.sender === undefined ? [m.payload.text] : []));
const answers = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant" ? [m.payload.text] : []));
const queueEvents = (ms: OmniMessage[]) =>
  ms.flatMap((m) => (m.type === "event_msg" && (m.payload.type === "followup_queued" || m.payload.type === "followup_dequeued") ? [m.payload] : []));

describe("the follow-up queue across a SIGKILL", () => {
  it("is folded from the trace by the restarted server and runs in order", { timeout: 120_000 }, async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 10, (r) => {
      const prompt = lastUserText(r);
      if (prompt === "second") return { text: "answer two" };
      if (prompt === "third") return { text: "answer three" };
      return { toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1" } }] };
    });
    const root = started.tempDir("penguin-queue-");
    const workspace = started.tempDir("penguin-queue-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const first = start(root);
    const url1 = await first.url();
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    const c1 = await signIn(url1, password);
    // read-only: the write asks, so the first task waits on a person while the others queue.
    const sid = await newSession(c1, { workspace, approvalMode: "read-only" });
    const sse = await openStream(c1, sid);
    expect((await c1.post(`/api/sessions/${sid}/tasks`, text("first"))).status).toBe(202);
    await untilServerEvent(sse, "approval_request");
    for (const prompt of ["second", "third"]) {
      const queued = await c1.post(`/api/sessions/${sid}/tasks`, { ...text(prompt), queueIfBusy: true });
      expect(queued.status).toBe(202);
      expect(queued.body.status).toBe("queued");
    }
    expect((await c1.get(`/api/sessions/${sid}`)).body.queued).toBe(2);
    await sse.close();
    // Both are in the trace before the kill.
    expect(queueEvents(traceOf(root, sid)).map((p) => p.type)).toEqual(["followup_queued", "followup_queued"]);

    first.proc.kill("SIGKILL");
    await first.exited;

    const second = start(root);
    const c2 = await signIn(await second.url(), password);
    await eventually(() => answers(traceOf(root, sid)).includes("answer three"), "the second follow-up to run on the restarted server");
    const trace = traceOf(root, sid);
    expect(userTexts(trace)).toEqual(["first", "second", "third"]);
    expect(answers(trace).filter((a) => a.startsWith("answer"))).toEqual(["answer two", "answer three"]);
    const queue = queueEvents(trace);
    const queuedIds = queue.filter((p) => p.type === "followup_queued").map((p) => p.followup_id);
    expect(queue.filter((p) => p.type === "followup_dequeued").map((p) => [p.followup_id, (p as { reason: string }).reason])).toEqual(queuedIds.map((id) => [id, "started"]));
    await eventually(async () => (await c2.get(`/api/sessions/${sid}`)).body.queued === 0, "the queue to be empty");
  });
});
