// A session stream opened while the session is idle, then the next task: every record of that
// task reaches the client, compared with the trace file, again and again.
// The real server runs as a child process; the model is the testkit's scripted server.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, parseTraceText, sessionTraceFiles } from "@penguin/core";
import { ApiClient } from "./helpers/client.js";
import { spawnServer, StartedServers, type ServerChild } from "./helpers/child.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart } from "./helpers/model.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { dataOf, type SseEvent } from "./helpers/sse.js";

const started = new StartedServers();
let kit: Testkit | undefined;

afterEach(async () => {
  await kit?.close();
  kit = undefined;
  await started.cleanup();
});

function start(root: string): ServerChild {
  const child = spawnServer(["--root", root, "--port", "0", "--no-open", "--workspace-root", tmpdir()]);
  started.track(child);
  return child;
}

const DURABLE_ID = /^\d{3}:\d{6}$/;

function traceRecords(root: string, sid: string): { id: string; data: unknown }[] {
  const out: { id: string; data: unknown }[] = [];
  for (const f of sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid)) {
    const content = parseTraceText(readFileSync(f.file, "utf8"));
    content.messages.forEach((m, i) => out.push({ id: `${String(f.index).padStart(3, "0")}:${String(content.lines[i]).padStart(6, "0")}`, data: m }));
  }
  return out;
}

const durable = (events: SseEvent[]) => events.filter((e) => e.id !== undefined && DURABLE_ID.test(e.id) && e.event === "message").map((e) => ({ id: e.id!, data: dataOf(e) }));

/** The records a client got after `fromId` (a stream id), beside the trace's records after it. */
function compare(root: string, sid: string, fromId: string | undefined, events: SseEvent[]): string | undefined {
  const trace = traceRecords(root, sid);
  // A server event's id names the last record before it, then its own number: the client has that record.
  const from = fromId?.split(".")[0];
  const expected = from === undefined ? trace : trace.slice(trace.findIndex((r) => r.id === from) + 1);
  const got = durable(events).filter((r) => from === undefined || r.id > from);
  return JSON.stringify(got) === JSON.stringify(expected) ? undefined : `got ${got.map((r) => r.id).join(",")}; the trace has ${expected.map((r) => r.id).join(",")}`;
}

async function runTask(c: ApiClient, sid: string, prompt: string, conn: Awaited<ReturnType<typeof openStream>>): Promise<void> {
  await conn.until((e) => e.event === "server_event" && e.id === undefined && dataOf(e).type === "task_state");
  expect((await c.post(`/api/sessions/${sid}/tasks`, text(prompt))).status).toBe(202);
  await untilRunsEnded(conn, 1);
  await conn.close();
}

describe("a stream opened on an idle session", () => {
  it("gets every record of the next task, compared with the trace, 50 times in a row (new and idle sessions, with and without Last-Event-ID)", { timeout: 600_000 }, async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 400, () => ({ text: "an answer in a few chunks", chunkSize: 4 }));
    const root = started.tempDir("penguin-idle-");
    configureProject(root, "default_project", modelEntry(kit));
    const server = start(root);
    const c = new ApiClient((u, init) => fetch(u, init), await server.url());
    await c.signIn("admin", readFileSync(join(root, "initial-admin-password"), "utf8").trim());
    let idle = await newSession(c, { approvalMode: "allow-all" });
    const failures: string[] = [];
    for (let round = 0; round < 50; round++) {
      // Even rounds: a session created just now (its header's sync may be in flight); odd: the idle one.
      const sid = round % 4 < 2 ? await newSession(c, { approvalMode: "allow-all" }) : idle;
      if (round % 4 === 1) idle = sid;
      const withId = round % 2 === 1;
      const cursor = withId ? ((await c.get(`/api/sessions/${sid}/messages`)).body.cursor as string) : undefined;
      const before = traceRecords(root, sid).at(-1)?.id;
      const conn = await openStream(c, sid, cursor);
      await runTask(c, sid, `task ${round}`, conn);
      const wrong = compare(root, sid, cursor ?? before, conn.events);
      if (wrong !== undefined) failures.push(`round ${round} (${withId ? "Last-Event-ID" : "no id"}): ${wrong}`);
    }
    expect(failures).toEqual([]);
  });

  it("after server restarts, a client coming back with Last-Event-ID (or without) gets every record of the next task", { timeout: 600_000 }, async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 200, () => ({ text: "an answer in a few chunks", chunkSize: 4 }));
    const root = started.tempDir("penguin-idle-");
    configureProject(root, "default_project", modelEntry(kit));
    let server = start(root);
    let c = new ApiClient((u, init) => fetch(u, init), await server.url());
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    await c.signIn("admin", password);
    const sid = await newSession(c, { approvalMode: "allow-all" });
    const failures: string[] = [];
    let last: string | undefined = (await c.get(`/api/sessions/${sid}/messages`)).body.cursor;
    for (let round = 0; round < 6; round++) {
      server.proc.kill(round % 2 === 0 ? "SIGKILL" : "SIGTERM");
      await server.exited;
      server = start(root);
      c = new ApiClient((u, init) => fetch(u, init), await server.url());
      await c.signIn("admin", password);
      const withId = round % 3 !== 2;
      const before = traceRecords(root, sid).at(-1)?.id;
      const conn = await openStream(c, sid, withId ? last : undefined);
      await runTask(c, sid, `task ${round}`, conn);
      const wrong = compare(root, sid, withId ? last : before, conn.events);
      if (wrong !== undefined) failures.push(`round ${round} (${withId ? "Last-Event-ID" : "no id"}): ${wrong}`);
      last = conn.events.filter((e) => e.id !== undefined).at(-1)?.id;
    }
    expect(failures).toEqual([]);
  });
});
