// The three-node stream test (issue 32): three server nodes as real processes on one data root
// and one real PostgreSQL, the model scripted by the testkit. Any node serves any session's
// stream: the node running a session announces its new durable trace lines (LISTEN/NOTIFY,
// positions only) and the others read them from the trace files, so a stream read from another
// node carries every record once, in order, with the same ids (trace positions) as the
// running node's, and a client moved between nodes resumes with Last-Event-ID. `/api/events`
// on a node that runs nothing carries the read-model rows of the sessions the others run.
// Waits are on events (stream records, a file the scripted command waits for), never on time.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StartedServers } from "./helpers/child.js";
import { DURABLE_ID, startCluster, traceRecordsOf } from "./helpers/cluster.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, endsWithToolResult } from "./helpers/model.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { dataOf, isServerEvent, SseReader, type SseEvent } from "./helpers/sse.js";

let postgres: PostgresServer;
const started = new StartedServers();
let kit: Testkit | undefined;

beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});
afterEach(async () => {
  await kit?.close();
  kit = undefined;
  await started.cleanup();
});

/** The records a stream carried (default event, id a trace position), in the order received. */
const durable = (events: SseEvent[]) => events.filter((e) => e.event === "message" && e.id !== undefined && DURABLE_ID.test(e.id)).map((e) => ({ id: e.id!, data: dataOf(e) }));
const saysResync = (events: SseEvent[]) => events.some((e) => isServerEvent(e, "resync_required"));

/** The trace's records after `after` through `through` (ids), as the files hold them. */
function traceBetween(root: string, sid: string, after: string, through: string): { id: string; data: unknown }[] {
  const all = traceRecordsOf(root, sid);
  const from = all.findIndex((r) => r.id === after) + 1;
  const to = all.findIndex((r) => r.id === through);
  expect(to).toBeGreaterThanOrEqual(from);
  return all.slice(from, to + 1);
}

describe("three nodes on one data root and one PostgreSQL: any node serves any stream", { timeout: 240_000 }, () => {
  it("a session created on node A, its task posted to node B (which forwards it to A, the runner), its stream read from node C: every durable event once, in order, with A's ids; /api/events on C has its row", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 10, (r) => (endsWithToolResult(r) ? { text: "the file is written", chunkSize: 4 } : { toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1" } }] }));
    const root = started.tempDir("penguin-three-nodes-");
    const workspace = started.tempDir("penguin-three-nodes-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const cluster = await startCluster(started, root, await postgres.createDatabase("three_nodes_run_on_a"), ["A", "B", "C"]);
    const a = cluster.node("A").client;
    const c = cluster.node("C").client;

    const feedOnC = new SseReader((await c.raw("GET", "/api/events")).body!);
    const sid = await newSession(a, { workspace, approvalMode: "allow-all" });
    const cursor = (await a.get(`/api/sessions/${sid}/messages`)).body.cursor as string;
    expect(cursor).toMatch(DURABLE_ID);
    const onA = await openStream(a, sid, cursor);
    const onC = await openStream(c, sid, cursor);

    // The task is posted to node B; A holds the session's lease (it created it), so B forwards it there.
    expect((await cluster.node("B").client.post(`/api/sessions/${sid}/tasks`, text("write a file"))).status).toBe(202);
    await untilRunsEnded(onA, 1);
    const fromA = durable(onA.events);
    const last = fromA.at(-1)!.id;
    await onC.until((e) => e.id === last);
    const fromC = durable(onC.events);

    // C got what A sent, the same records with the same ids, each once, in trace order.
    expect(fromC).toEqual(fromA);
    expect(fromA).toEqual(traceBetween(root, sid, cursor, last));
    expect(new Set(fromC.map((r) => r.id)).size).toBe(fromC.length);
    expect(fromC.some((r) => (r.data as any).payload?.text === "the file is written")).toBe(true);
    expect(saysResync(onC.events)).toBe(false);
    // Partials are the running node's own: C's stream holds records only.
    expect(onC.events.filter((e) => e.event === "message").length).toBe(fromC.length);
    expect(onA.events.filter((e) => e.event === "message").length).toBeGreaterThan(fromA.length);

    // C's user feed carries the read model's row of the session A ran, with its task counted.
    const row = await feedOnC.until((e) => isServerEvent(e, "session_row") && dataOf(e).session.sessionId === sid && dataOf(e).session.tasks >= 1);
    expect(dataOf(row).session).toMatchObject({ sessionId: sid, projectId: "default_project", agentId: "default_agent" });
    await Promise.all([onA.close(), onC.close(), feedOnC.close()]);
  });

  it("a client of node B (and one of the running node A) that disconnects mid-run and reconnects to node C with Last-Event-ID misses nothing and sees nothing twice", async () => {
    kit = await startTestkit();
    // The run's command waits for a file the test writes once the client has moved.
    enqueueSmart(kit, 10, (r) =>
      endsWithToolResult(r)
        ? { text: "released and done", chunkSize: 4 }
        : { toolCalls: [{ name: "exec_command", arguments: { cmd: "while [ ! -e release ]; do sleep 0.02; done; echo released", description: "wait for the release file" } }] },
    );
    const root = started.tempDir("penguin-three-nodes-");
    const workspace = started.tempDir("penguin-three-nodes-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const cluster = await startCluster(started, root, await postgres.createDatabase("three_nodes_move_b_to_c"), ["A", "B", "C"]);
    const b = cluster.node("B").client;
    const c = cluster.node("C").client;

    const sid = await newSession(cluster.node("A").client, { workspace, approvalMode: "allow-all" });
    const cursor = (await b.get(`/api/sessions/${sid}/messages`)).body.cursor as string;
    // C has this session's hub from an earlier client, which left: nobody there follows it meanwhile.
    await (await openStream(c, sid, cursor)).close();
    const onB = await openStream(b, sid, cursor);
    // A client of the running node leaves too: its last id may be a partial's or a server event's (`NNN:LLLLLL.<epoch>.<k>`).
    const onA = await openStream(cluster.node("A").client, sid, cursor);
    expect((await cluster.node("A").client.post(`/api/sessions/${sid}/tasks`, text("wait for the release"))).status).toBe(202);
    // The command's call is durable: the run now waits for the file. The clients leave B and A.
    const isCommandCall = (e: SseEvent) => e.id !== undefined && DURABLE_ID.test(e.id) && e.event === "message" && e.data.includes("exec_command");
    await Promise.all([onB.until(isCommandCall), onA.until(isCommandCall)]);
    await Promise.all([onB.close(), onA.close()]);
    const lastOf = (events: SseEvent[]) => events.filter((e) => e.id !== undefined).at(-1)!.id!;
    const fromB = durable(onB.events);
    expect(lastOf(onB.events)).toBe(fromB.at(-1)!.id);

    const onC = await openStream(c, sid, lastOf(onB.events));
    const onCfromA = await openStream(c, sid, lastOf(onA.events));
    writeFileSync(join(workspace, "release"), "");
    const isAnswer = (e: SseEvent) => e.event === "message" && e.id !== undefined && (dataOf(e) as any).payload?.text === "released and done";
    const [done] = await Promise.all([onC.until(isAnswer), onCfromA.until(isAnswer)]);

    // Over both connections, for each client: exactly the trace's records after the cursor, none twice, in order.
    const expected = traceBetween(root, sid, cursor, done.id!);
    for (const [before, after] of [
      [onB, onC],
      [onA, onCfromA],
    ] as const) {
      expect(saysResync(after.events)).toBe(false);
      const all = [...durable(before.events), ...durable(after.events)];
      expect(all.slice(0, all.findIndex((r) => r.id === done.id) + 1)).toEqual(expected);
      expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
      // Records were written after the move (the command's output, the answer) and came to C live.
      expect(durable(after.events).length).toBeGreaterThanOrEqual(2);
    }
    await onCfromA.close();
    await onC.close();
  });
});
