// A session stream across a server restart. The server runs as a real process on a socket;
// a client follows a task, drops its connection, the server is killed (SIGKILL) while the
// task is mid-request, a new server starts on the same data root, and the client comes back
// with Last-Event-ID. Compared line by line with the trace file: every record the client got
// over both connections is the record at that position, none is missing, none came twice,
// and the records written after the restart arrive live on the resumed connection. An id
// that names no position of the trace (past its end, the old `<epoch>-<seq>` form) gets
// `resync_required`.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { parseTraceText, sessionTraceFiles, agentPaths } from "@penguin/core";
import { ApiClient } from "./helpers/client.js";
import { spawnServer, StartedServers, type ServerChild } from "./helpers/child.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, endsWithToolResult, lastUserText } from "./helpers/model.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { dataOf, type SseEvent } from "./helpers/sse.js";

const started = new StartedServers();
const tempDir = (prefix: string) => started.tempDir(prefix);
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

async function signIn(url: string, password: string): Promise<ApiClient> {
  const c = new ApiClient((u, init) => fetch(u, init), url);
  await c.signIn("admin", password);
  return c;
}

const DURABLE_ID = /^\d{3}:\d{6}$/;

/** The trace records of a session with their positions, as a reader of the files sees them. */
function traceRecords(root: string, sid: string): { id: string; data: unknown }[] {
  const out: { id: string; data: unknown }[] = [];
  for (const f of sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid)) {
    const content = parseTraceText(readFileSync(f.file, "utf8"));
    content.messages.forEach((m, i) => out.push({ id: `${String(f.index).padStart(3, "0")}:${String(content.lines[i]).padStart(6, "0")}`, data: m }));
  }
  return out;
}

const durable = (events: SseEvent[]) => events.filter((e) => e.id !== undefined && DURABLE_ID.test(e.id) && e.event === "message").map((e) => ({ id: e.id!, data: dataOf(e) }));

describe("a session stream across a server restart", () => {
  it("resumes with Last-Event-ID from the trace: no record lost or duplicated compared to the trace file", { timeout: 120_000 }, async () => {
    kit = await startTestkit();
    let killed = false;
    enqueueSmart(kit, 10, (r) => {
      if (lastUserText(r) === "after the restart") return { text: "answered by the new server", chunkSize: 5 };
      if (endsWithToolResult(r) && !killed) return { text: "this answer is cut by the kill", chunkSize: 3, fault: { kind: "hang", afterEvents: 4 } };
      return { toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1" } }] };
    });
    const root = tempDir("penguin-restart-");
    const workspace = tempDir("penguin-restart-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const first = start(root);
    const url1 = await first.url();
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    const c1 = await signIn(url1, password);
    const sid = await newSession(c1, { workspace, approvalMode: "allow-all" });
    const before = (await c1.get(`/api/sessions/${sid}/messages`)).body.cursor as string;
    expect(before).toMatch(DURABLE_ID);

    // The client follows the task and drops after its first records.
    const conn1 = await openStream(c1, sid, before);
    await c1.post(`/api/sessions/${sid}/tasks`, text("write a file"));
    await conn1.until((_e, all) => durable(all).length >= 3);
    await conn1.close();
    // The task goes on without the client: the tool runs, the next request streams and hangs.
    for (let n = 2; !kit.requests.some(endsWithToolResult); n++) await kit.waitForRequests(n);
    first.proc.kill("SIGKILL");
    await first.exited;
    killed = true;
    // What was durable when the server died: the records the client has not seen are among them.
    const cut = traceRecords(root, sid);
    expect(cut.length).toBeGreaterThan(durable(conn1.events).length + 4);

    const second = start(root);
    const c2 = await signIn(await second.url(), password);
    const lastId = conn1.events.filter((e) => e.id !== undefined).at(-1)!.id!;
    const conn2 = await openStream(c2, sid, lastId);
    // What it missed comes first, from the trace, before the snapshot of the task state.
    const snapshot = await conn2.until((e) => e.id === undefined && e.event === "server_event" && dataOf(e).type === "task_state");
    const replayed = durable(conn2.events.slice(0, conn2.events.indexOf(snapshot)));
    expect(replayed.length).toBeGreaterThan(0);
    expect(conn2.events.some((e) => e.event === "server_event" && dataOf(e).type === "resync_required")).toBe(false);

    // A new task on the new server: its records arrive live on the resumed connection.
    expect((await c2.post(`/api/sessions/${sid}/tasks`, text("after the restart"))).status).toBe(202);
    await untilRunsEnded(conn2, 1);
    await conn2.close();

    const trace = traceRecords(root, sid);
    const start1 = trace.findIndex((r) => r.id === before) + 1;
    const received = [...durable(conn1.events), ...durable(conn2.events)];
    expect(received.map((r) => r.id)).toEqual(trace.slice(start1).map((r) => r.id));
    expect(received.map((r) => r.data)).toEqual(trace.slice(start1).map((r) => r.data));
    // The replay is exactly the records written between the drop and the restart.
    const dropAt = trace.findIndex((r) => r.id === durable(conn1.events).at(-1)!.id) + 1;
    expect(replayed).toEqual(cut.slice(dropAt));
    expect(received.some((r) => (r.data as any).payload?.text === "answered by the new server")).toBe(true);

    // Ids that name no position of this trace.
    const pastEnd = `${String(Number(trace.at(-1)!.id.slice(0, 3)) + 1).padStart(3, "0")}:000001`;
    for (const stale of [pastEnd, "001:999999", "mx4abc-12", "garbage"]) {
      const r = await openStream(c2, sid, stale);
      const first = await r.until(() => true);
      expect(first.event).toBe("server_event");
      expect(dataOf(first)).toMatchObject({ type: "resync_required", lastEventId: stale });
      await r.close();
    }
  });
});
