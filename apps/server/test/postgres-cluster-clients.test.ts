// Issue 32's cluster scenarios as a user meets them, each with three server nodes as real child
// processes on one data root and one real PostgreSQL (helpers/cluster.ts): the node running a
// task SIGKILLed mid-stream while browsers watch it from every node (the survivors' clients see
// the stream go on, the dead node's client reconnects elsewhere with Last-Event-ID, nothing
// committed is lost); a scheduled task firing once across the nodes, and once more after its
// duty holder is SIGKILLed; a login lockout earned on one node holding on another. Every wait
// is for the event itself (a stream record, a trace line, a row, a process exit), never a time;
// only the lockout scenario pauses, for as long as the server's Retry-After asks, as a client would.
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentPaths, parseTraceText, sessionTraceFiles } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { committedTurns } from "../../../test/fuzz/core/trace-oracle.js";
import { ApiClient, type ApiAnswer } from "./helpers/client.js";
import { StartedServers } from "./helpers/child.js";
import { DURABLE_ID, dutyHolders, startCluster, traceRecordsOf, type ClusterNode } from "./helpers/cluster.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, isTitleRequest, lastUserText } from "./helpers/model.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";
import { newSession, openStream, text } from "./helpers/session.js";
import { dataOf, isServerEvent, type SseEvent } from "./helpers/sse.js";

/** A short lease so a failover does not wait 15 s; the protocol is the same at any length. */
const LEASE_ENV = { PENGUIN_LEASE_MS: "1500" };

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

function traceOf(root: string, sid: string): OmniMessage[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).flatMap((f) => parseTraceText(readFileSync(f.file, "utf8")).messages);
}

function tornLines(root: string, sid: string): number[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).map((f) => parseTraceText(readFileSync(f.file, "utf8")).skipped.length);
}

const userTexts = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "user" && m.payload.sender === undefined ? [m.payload.text] : []));

/** The records a stream carried (default event, id a trace position), in the order received. */
const durable = (events: SseEvent[]) => events.filter((e) => e.event === "message" && e.id !== undefined && DURABLE_ID.test(e.id)).map((e) => ({ id: e.id!, data: dataOf(e) }));
const lastIdOf = (events: SseEvent[]) => events.filter((e) => e.id !== undefined).at(-1)?.id;

/** Polls `check` until it holds; the pause only spaces the polls (the test's own timeout bounds the wait). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function leaseHolder(database: string, sid: string): Promise<string | undefined> {
  return (await query<{ node_id: string }>(database, "select node_id from cluster_session_leases where session_id = $1", [sid]))[0]?.node_id;
}

/**
 * The one node of `among` holding duty `name`, once exactly one does (a SIGKILLed holder's lock
 * lasts until PostgreSQL notices its connection is gone).
 */
async function dutyHolder(among: readonly ClusterNode[], database: string, name: string): Promise<ClusterNode> {
  let holders: number[] = [];
  await until(async () => (holders = await dutyHolders(database, name)).length === 1 && among.some((n) => n.child.proc.pid === holders[0]), `one of ${among.map((n) => n.name).join(", ")} to hold the ${name} duty`);
  return among.find((n) => n.child.proc.pid === holders[0])!;
}

const SCHEDULES = "/api/projects/default_project/agents/default_agent/schedules";

/** Sessions the schedules created, as a node lists them (from the shared facts). */
async function scheduledSessions(node: ClusterNode): Promise<string[]> {
  const listed = await node.client.get("/api/projects/default_project/agents/default_agent/sessions?category=schedule");
  expect(listed.status).toBe(200);
  return (listed.body.sessions as { id: string }[]).map((s) => s.id);
}

/** How many runs of schedule `name` the session traces under the root hold (`[scheduled_task]` prompts naming it). */
function runsInTraces(root: string, sessionIds: readonly string[], name: string): number {
  return sessionIds.flatMap((sid) => traceOf(root, sid)).filter((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "user" && m.payload.text.startsWith(`[scheduled_task]\nname: ${name}\n`)).length;
}

/** A login at `url` by a client with no cookie, as the route answers it (no throwing on refusal). */
function loginAt(url: string, userId: string, password: string): Promise<ApiAnswer<any>> {
  return new ApiClient((u, init) => fetch(u, init), url).post("/api/auth/login", { userId, password }) as Promise<ApiAnswer<any>>;
}

describe("three server processes on one root and one PostgreSQL, as their users meet them", { timeout: 240_000 }, () => {
  it("SIGKILL the node running a task mid-stream: survivors' clients see the resumed run once and in order, the dead node's client reconnects elsewhere and misses nothing, nothing committed is lost", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 20, (r) => {
      const prompt = lastUserText(r);
      if (prompt === "second") return { text: "answer two", chunkSize: 4 };
      if (prompt !== "first") return { text: `unexpected: ${prompt}` };
      // The first task: one committed tool turn, then an answer that stops mid-stream and never ends.
      if (r.messages.at(-1)?.kind === "tool_result") return { text: "a long answer that is cut off here and never finishes", chunkSize: 10, fault: { kind: "hang", afterEvents: 3 } };
      return { text: "step one done", toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1" } }] };
    });
    const root = started.tempDir("penguin-failover-clients-");
    const workspace = started.tempDir("penguin-failover-clients-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const database = await postgres.createDatabase("failover_clients");
    const cluster = await startCluster(started, root, database, ["A", "B", "C"], { env: LEASE_ENV });
    const [a, b, c] = ["A", "B", "C"].map((n) => cluster.node(n));

    // Created on A, so A runs it. A client on every node, all from the same cursor.
    const sid = await newSession(a!.client, { workspace, approvalMode: "allow-all" });
    expect(await leaseHolder(database, sid)).toBe(a!.nodeId);
    const cursor = (await b!.client.get(`/api/sessions/${sid}/messages`)).body.cursor as string;
    expect(cursor).toMatch(DURABLE_ID);
    const onA = await openStream(a!.client, sid, cursor);
    const onB = await openStream(b!.client, sid, cursor);
    const onC = await openStream(c!.client, sid, cursor);
    expect((await a!.client.post(`/api/sessions/${sid}/tasks`, text("first"))).status).toBe(202);
    // Mid-stream: the second request's answer has begun arriving on A's stream (a partial).
    await onA.until((e) => e.data.includes("a long"));
    // A follow-up queued through C (forwarded to A, which records it): the work the new runner resumes.
    const queued = await c!.client.post(`/api/sessions/${sid}/tasks`, { ...text("second"), queueIfBusy: true });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body.status).toBe("queued");
    const isQueued = (e: SseEvent) => e.event === "message" && e.id !== undefined && DURABLE_ID.test(e.id) && dataOf(e).payload?.type === "followup_queued";
    await Promise.all([onA.until(isQueued), onB.until(isQueued), onC.until(isQueued)]);
    const before = traceOf(root, sid);
    const committed = committedTurns(before);
    expect(committed.texts).toContain("step one done");
    const seenBeforeKill = { B: durable(onB.events).length, C: durable(onC.events).length };

    // A dies without a goodbye. Its client reads what reached it, then reconnects to B with its last id.
    expect(await cluster.kill("A", "SIGKILL")).not.toBe(0);
    await onA.readToEnd().catch(() => undefined);
    const lastOnA = lastIdOf(onA.events)!;
    const onAmoved = await openStream(b!.client, sid, lastOnA);

    // Another node takes the session over within the (short) lease and runs the follow-up;
    // every client sees its answer arrive, none being asked to start over.
    const isAnswerTwo = (e: SseEvent) => e.event === "message" && e.id !== undefined && DURABLE_ID.test(e.id) && dataOf(e).payload?.text === "answer two";
    const [done] = await Promise.all([onB.until(isAnswerTwo), onC.until(isAnswerTwo), onAmoved.until(isAnswerTwo)]);
    const runner = await leaseHolder(database, sid);
    expect([b!.nodeId, c!.nodeId]).toContain(runner);

    // Each client, over its connection(s): exactly the trace's records after the cursor through
    // the answer, each once, in order, its ids the trace positions of the files.
    const expected = traceRecordsOf(root, sid).filter((_r, i, all) => i > all.findIndex((x) => x.id === cursor) && i <= all.findIndex((x) => x.id === done.id));
    expect(expected.length).toBeGreaterThan(0);
    const clients: [string, SseEvent[]][] = [
      ["B", onB.events],
      ["C", onC.events],
      ["A then B", [...onA.events, ...onAmoved.events]],
    ];
    for (const [who, events] of clients) {
      expect(events.some((e) => isServerEvent(e, "resync_required")), `${who} was asked to resync`).toBe(false);
      const got = durable(events);
      expect(new Set(got.map((r) => r.id)).size, `${who} saw a record twice`).toBe(got.length);
      expect(got.slice(0, got.findIndex((r) => r.id === done.id) + 1), `${who}'s records`).toEqual(expected);
    }
    // The survivors' clients stayed connected and got the new runner's records live.
    expect(durable(onB.events).length - seenBeforeKill.B).toBeGreaterThanOrEqual(2);
    expect(durable(onC.events).length - seenBeforeKill.C).toBeGreaterThanOrEqual(2);

    // Nothing committed was lost (the crash suite's checks on the trace): the committed turn kept
    // and sent on with its tool output, at most one torn line, a well-formed exchange.
    const after = traceOf(root, sid);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(userTexts(after)).toEqual(["first", "second"]);
    const resumed = kit.requests.filter((r) => !isTitleRequest(r) && lastUserText(r) === "second");
    expect(resumed).toHaveLength(1);
    const sentTexts = resumed[0]!.messages.filter((m) => m.role === "assistant" && m.kind === "text").map((m) => m.text);
    for (const t of committed.texts) expect(sentTexts).toContain(t);
    expect(resumed[0]!.messages.some((m) => m.kind === "tool_result")).toBe(true);
    expect(kit.violations).toEqual([]);
    for (const torn of tornLines(root, sid)) expect(torn).toBeLessThanOrEqual(1);
    await Promise.all([onB.close(), onC.close(), onAmoved.close()]);
  });

  it("a scheduled task fires once across three nodes (the scheduler duty's holder), and after that holder is SIGKILLed the next firing happens once on another node", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 20, (r) => ({ text: lastUserText(r).includes("[scheduled_task]") ? "scheduled work done" : `unexpected: ${lastUserText(r)}` }));
    const root = started.tempDir("penguin-schedule-once-");
    const workspace = started.tempDir("penguin-schedule-once-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const database = await postgres.createDatabase("schedule_once");
    const cluster = await startCluster(started, root, database, ["A", "B", "C"], { env: LEASE_ENV });
    const holder = await dutyHolder(cluster.nodes, database, "scheduler");
    const others = cluster.nodes.filter((n) => n !== holder);

    // A one-shot schedule due at once, created through a node that does not hold the duty.
    const slotText = (name: string) => `enabled = true\nprompt = "Run ${name}"\nstart_at = "${new Date(Date.now()).toISOString()}"\nworkspace = "${workspace}"\n`;
    const created = await others[0]!.client.post(SCHEDULES, { name: "first", text: slotText("first") });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    let sessions: string[] = [];
    await until(async () => (sessions = await scheduledSessions(others[1]!)).length > 0 && runsInTraces(root, sessions, "first") > 0, "the first schedule to fire");
    // It ran on the duty's holder (its session's lease row names it), once.
    expect(sessions).toHaveLength(1);
    expect(await leaseHolder(database, sessions[0]!)).toBe(holder.nodeId);
    await until(() => JSON.stringify(traceOf(root, sessions[0]!)).includes("scheduled work done"), "the scheduled run's answer");
    const state = await query<{ last_slot_ms: string }>(database, "select last_slot_ms from schedule_state where name = 'first'");
    expect(state).toHaveLength(1);
    expect(state[0]!.last_slot_ms).not.toBeNull();

    // The holder dies without a goodbye: its connection, and the duty's lock, go with it.
    expect(await cluster.kill(holder.name, "SIGKILL")).not.toBe(0);
    const successor = await dutyHolder(others, database, "scheduler");
    expect(others).toContain(successor);
    const second = await others[0]!.client.post(SCHEDULES, { name: "second", text: slotText("second") });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    await until(async () => runsInTraces(root, (sessions = await scheduledSessions(others[1]!)), "second") > 0, "the second schedule to fire on a surviving node");
    const secondSessions = sessions.filter((sid) => runsInTraces(root, [sid], "second") > 0);
    expect(secondSessions).toHaveLength(1);
    expect(await leaseHolder(database, secondSessions[0]!)).toBe(successor.nodeId);
    // Its task is in the trace as soon as it fires; its request reaches the model after: wait for the answer.
    await until(() => JSON.stringify(traceOf(root, secondSessions[0]!)).includes("scheduled work done"), "the second run's answer");
    // Each schedule ran exactly once over the whole cluster.
    expect(sessions).toHaveLength(2);
    expect([runsInTraces(root, sessions, "first"), runsInTraces(root, sessions, "second")]).toEqual([1, 1]);
    expect(kit.requests.filter((r) => lastUserText(r).includes("[scheduled_task]"))).toHaveLength(2);
  });

  it("a login lockout earned on node A holds on nodes B and C: the right password is refused there with the same answer", async () => {
    const root = started.tempDir("penguin-lockout-");
    const database = await postgres.createDatabase("lockout_across_nodes");
    const cluster = await startCluster(started, root, database, ["A", "B", "C"]);
    const password = cluster.adminPassword;
    const [a, b, c] = ["A", "B", "C"].map((n) => cluster.node(n)!.url);

    // Wrong passwords at A until its refusal asks for a wait of 8 s or more, each wait honoured
    // as Retry-After asks (the free attempts, then 1 s, 2 s, 4 s): B is asked well inside it.
    let refusal: ApiAnswer<any> | undefined;
    for (let attempt = 0; attempt < 40; attempt++) {
      const answer = await loginAt(a!, "admin", `wrong-${attempt}`);
      expect([401, 429]).toContain(answer.status);
      if (answer.status === 401) continue;
      const wait = Number(answer.headers.get("retry-after"));
      if (wait >= 8) {
        refusal = answer;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
    expect(refusal, "node A never locked the account out").toBeDefined();
    expect(refusal!.body.error.code).toBe("rate_limited");

    for (const [node, url] of [
      ["B", b!],
      ["C", c!],
    ] as const) {
      const other = await loginAt(url, "admin", password);
      expect(other.status, `node ${node} answered ${JSON.stringify(other.body)}`).toBe(429);
      expect(other.body.error.code).toBe("rate_limited");
      expect(other.body.error.message).toMatch(/^too many failed logins for admin from this address; try again in \d+ s$/);
      const wait = Number(other.headers.get("retry-after"));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(Number(refusal!.headers.get("retry-after")));
    }
  });
});
