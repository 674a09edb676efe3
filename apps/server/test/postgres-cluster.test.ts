// Several server nodes on one data root and one PostgreSQL (helpers/postgres.ts), each a real
// child process on 127.0.0.1, the model the testkit's scripted one. One runner per session,
// cluster-wide: a task posted to node B for a session node A runs is forwarded to A and runs
// there once; and when the node running a task is SIGKILLed mid-stream, another node takes the
// session over once the dead node's lease row has expired, resumes it from the trace (the
// interrupted turn's carry-over) and runs the follow-up that was queued, losing nothing the
// trace had committed (the crash suite's checks: committed turns kept and sent on, at most one
// torn line, the testkit's pairing check). Every wait is for the event itself (a trace line, a
// stream event, a row), never for an amount of time.
import { readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentPaths, parseTraceText, sessionLeaseFile, sessionTraceFiles } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { startTestkit, type RecordedRequest, type Testkit } from "@penguin/testkit";
import { committedTurns } from "../../../test/fuzz/core/trace-oracle.js";
import { leaseMsFrom } from "../src/cluster/cluster-node.js";
import { StartedServers } from "./helpers/child.js";
import { startCluster as startNodes, type ClusterNode } from "./helpers/cluster.js";
import { configureProject, modelEntry, startHarness } from "./helpers/harness.js";
import { enqueueSmart, isTitleRequest, lastUserText } from "./helpers/model.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";
import { newSession, openStream, text } from "./helpers/session.js";
import { dataOf } from "./helpers/sse.js";

/** A short lease so a failover does not wait 15 s; the protocol is the same at any length. */
const LEASE_MS = "3000";

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

/** Three nodes A, B, C (helpers/cluster.ts) with the short lease. */
async function startCluster(root: string, database: string): Promise<ClusterNode[]> {
  return (await startNodes(started, root, database, ["A", "B", "C"], { env: { PENGUIN_LEASE_MS: LEASE_MS } })).nodes;
}

function traceOf(root: string, sid: string): OmniMessage[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).flatMap((f) => parseTraceText(readFileSync(f.file, "utf8")).messages);
}

function tornLines(root: string, sid: string): number[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).map((f) => parseTraceText(readFileSync(f.file, "utf8")).skipped.length);
}

const userTexts = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "user" && m.payload.sender === undefined ? [m.payload.text] : []));
const answers = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant" ? [m.payload.text] : []));
const eventTypes = (ms: OmniMessage[], types: string[]) => ms.flatMap((m) => (m.type === "event_msg" && types.includes(m.payload.type) ? [m.payload.type] : []));

/** Polls `check` until it holds; the pause only spaces the polls (the test's own timeout bounds the wait). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function leaseHolder(database: string, sid: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const rows = await client.query<{ node_id: string }>("select node_id from cluster_session_leases where session_id = $1", [sid]);
    return rows.rows[0]?.node_id;
  } finally {
    await client.end();
  }
}

async function leaseExpired(database: string, sid: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const rows = await client.query<{ expired: boolean }>("select expires_at <= (extract(epoch from clock_timestamp()) * 1000)::bigint as expired from cluster_session_leases where session_id = $1", [sid]);
    // Gone counts too: the sweeper drops expired rows of idle sessions.
    return rows.rows[0] === undefined || rows.rows[0].expired;
  } finally {
    await client.end();
  }
}

async function expireLease(database: string, sid: string): Promise<void> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    await client.query("update cluster_session_leases set expires_at = 0 where session_id = $1", [sid]);
  } finally {
    await client.end();
  }
}

const modelTurns = (k: Testkit): RecordedRequest[] => k.requests.filter((r) => !isTitleRequest(r));

describe("the cluster's settings", () => {
  it("refuses a PENGUIN_LEASE_MS that is not a whole number of milliseconds in range, naming it and the default", () => {
    expect(leaseMsFrom({})).toBe(15_000);
    expect(leaseMsFrom({ PENGUIN_LEASE_MS: "4000" })).toBe(4000);
    for (const bad of ["fast", "1.5", "10", "9999999"]) expect(() => leaseMsFrom({ PENGUIN_LEASE_MS: bad })).toThrow(/PENGUIN_LEASE_MS must be a whole number of milliseconds from 300 to 600000 \(got ".*"\); leave it unset for 15000 ms/);
  });
});

describe("several server nodes on one data root", { timeout: 180_000 }, () => {
  it("a task posted to node B for a session node A runs is forwarded to A and runs there once, its events once and in order", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 10, (r) => (lastUserText(r) === "hello" ? { text: "answer one" } : { text: `unexpected: ${lastUserText(r)}` }));
    const root = started.tempDir("penguin-cluster-");
    const workspace = started.tempDir("penguin-cluster-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const database = await postgres.createDatabase("cluster_forward");
    const [a, b, c] = await startCluster(root, database);

    // Created on A: A holds the session's lease row.
    const sid = await newSession(a!.client, { workspace });
    expect(await leaseHolder(database, sid)).toBe(a!.nodeId);
    const stream = await openStream(a!.client, sid);

    // Posted to B, which does not run it, as a browser would (Origin: B's own address): forwarded
    // (B checked the Origin; A, another host, gets none) and accepted by A, which authenticates
    // the user itself from the same cookie.
    const posted = await b!.client.call("POST", `/api/sessions/${sid}/tasks`, text("hello"), { origin: b!.url });
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    expect(posted.body.status).toBe("started");
    await stream.until((e) => e.event === "server_event" && dataOf(e).type === "task_state" && dataOf(e).state === "idle" && e.id !== undefined);
    await stream.close();

    // It ran once, on A (still the holder), and the trace has each event once, in order.
    expect(modelTurns(kit).map(lastUserText)).toEqual(["hello"]);
    expect(await leaseHolder(database, sid)).toBe(a!.nodeId);
    const trace = traceOf(root, sid);
    expect(userTexts(trace)).toEqual(["hello"]);
    expect(answers(trace).filter((t) => !t.startsWith("Scripted"))).toEqual(["answer one"]);
    expect(eventTypes(trace, ["request_begin", "request_end"])).toEqual(["request_begin", "request_end"]);

    // C reads the history after the run: the same one exchange.
    const history = await c!.client.get(`/api/sessions/${sid}/messages`);
    expect(history.status).toBe(200);
    const shown = JSON.stringify(history.body);
    expect(shown.split("answer one").length - 1).toBe(1);
    expect(shown.split('"hello"').length - 1).toBe(1);

    // A write that is not the runner's to take: B, asked to act on it itself (the forwarded
    // mark), refuses naming where it runs rather than loading it beside A.
    const direct = await b!.client.call("POST", `/api/sessions/${sid}/tasks`, text("again"), { "x-penguin-forwarded-by": "test" });
    expect(direct.status).toBe(409);
    expect(direct.body.error.code).toBe("session_busy");
    expect(direct.body.error.message).toContain(a!.nodeId);

    // The runner trusts no node's word about the user: a request that says it was forwarded but
    // carries no credentials is refused by A itself.
    const anonymous = await fetch(`${a!.url}/api/sessions/${sid}/tasks`, { method: "POST", headers: { "content-type": "application/json", "x-penguin-forwarded-by": b!.nodeId }, body: JSON.stringify(text("sneaky")) });
    expect(anonymous.status).toBe(401);
    expect(modelTurns(kit).map(lastUserText)).toEqual(["hello"]);
  });

  it("a node SIGKILLed mid-stream loses the session to another node, which resumes it and runs the queued follow-up", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 20, (r) => {
      const prompt = lastUserText(r);
      if (prompt === "second") return { text: "answer two" };
      if (prompt !== "first") return { text: `unexpected: ${prompt}` };
      // The first task: one committed tool turn, then a stream that stops mid-answer and never ends.
      if (r.messages.at(-1)?.kind === "tool_result") return { text: "a long answer that is cut off here and never finishes", chunkSize: 10, fault: { kind: "hang", afterEvents: 3 } };
      return { text: "step one done", toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1" } }] };
    });
    const root = started.tempDir("penguin-failover-");
    const workspace = started.tempDir("penguin-failover-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const database = await postgres.createDatabase("cluster_failover");
    const [a, b, c] = await startCluster(root, database);

    const sid = await newSession(a!.client, { workspace, approvalMode: "allow-all" });
    const stream = await openStream(a!.client, sid);
    expect((await a!.client.post(`/api/sessions/${sid}/tasks`, text("first"))).status).toBe(202);
    // Mid-stream: the second request's answer has begun arriving (its first delta is on A's stream).
    await stream.until((e) => e.data.includes("a long"));
    // A follow-up queued through C: forwarded to A, which records it in the trace.
    const queued = await c!.client.post(`/api/sessions/${sid}/tasks`, { ...text("second"), queueIfBusy: true });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body.status).toBe("queued");
    expect(eventTypes(traceOf(root, sid), ["followup_queued"])).toEqual(["followup_queued"]);
    const before = traceOf(root, sid);
    const committed = committedTurns(before);
    expect(committed.texts).toContain("step one done");

    a!.child.proc.kill("SIGKILL");
    await a!.child.exited;
    await stream.close().catch(() => undefined);

    // Another node takes the session over and runs the queued follow-up.
    await until(() => answers(traceOf(root, sid)).includes("answer two"), "the follow-up to run on a surviving node");
    const runner = await leaseHolder(database, sid);
    expect([b!.nodeId, c!.nodeId]).toContain(runner);

    // Nothing committed was lost: the trace keeps the committed turn, the follow-up's request
    // sent it on (with the tool's output), the testkit saw a well-formed exchange.
    const after = traceOf(root, sid);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(userTexts(after)).toEqual(["first", "second"]);
    const resumed = modelTurns(kit).find((r) => lastUserText(r) === "second");
    expect(resumed).toBeDefined();
    const sentTexts = resumed!.messages.filter((m) => m.role === "assistant" && m.kind === "text").map((m) => m.text);
    for (const t of committed.texts) expect(sentTexts).toContain(t);
    expect(resumed!.messages.some((m) => m.kind === "tool_result")).toBe(true);
    expect(kit.violations).toEqual([]);
    for (const torn of tornLines(root, sid)) expect(torn).toBeLessThanOrEqual(1);
    // The follow-up ran once, on the new runner, and the session went idle there.
    expect(modelTurns(kit).filter((r) => lastUserText(r) === "second")).toHaveLength(1);
    const survivor = [b!, c!].find((n) => n.nodeId === runner)!;
    await until(async () => (await survivor.client.get(`/api/sessions/${sid}`)).body.queued === 0, "the queue to be empty on the new runner");
  });

  it("a dead node's file lease from another host does not block the node that took the session's expired lease row", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 10, (r) => (lastUserText(r) === "after" ? { text: "ran on B" } : { text: `unexpected: ${lastUserText(r)}` }));
    const root = started.tempDir("penguin-cluster-host-");
    const workspace = started.tempDir("penguin-cluster-host-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const database = await postgres.createDatabase("cluster_other_host");
    const [a, b] = await startCluster(root, database);
    const sid = await newSession(a!.client, { workspace });
    const leaseFile = sessionLeaseFile(agentPaths(root, "default_project", "default_agent"), sid);
    a!.child.proc.kill("SIGKILL");
    await a!.child.exited;
    // As if A had run on another machine: its file lease names a host nobody here can check,
    // which on its own is never taken over (a CLI would be told to remove it by hand).
    const held = JSON.parse(readFileSync(leaseFile, "utf8"));
    expect(held.command).toBe(`penguin server node ${a!.nodeId}`);
    writeFileSync(leaseFile, `${JSON.stringify({ ...held, host: "node-a.elsewhere.example" })}\n`);
    await until(() => leaseExpired(database, sid), "A's lease row to expire (or be dropped)");

    // B takes the expired row, and with it the right to set the other host's file lease aside.
    const posted = await b!.client.post(`/api/sessions/${sid}/tasks`, text("after"));
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    await until(() => answers(traceOf(root, sid)).includes("ran on B"), "the task to run on B");
    expect(await leaseHolder(database, sid)).toBe(b!.nodeId);
    expect(JSON.parse(readFileSync(leaseFile, "utf8")).command).toBe(`penguin server node ${b!.nodeId}`);
  });

  it("a node stopped gracefully (SIGTERM) while its session has a queued follow-up hands the session over at once", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, 20, (r) => {
      const prompt = lastUserText(r);
      if (prompt === "later") return { text: "ran elsewhere" };
      if (prompt === "waiting") return { text: "this answer never ends", chunkSize: 10, fault: { kind: "hang", afterEvents: 3 } };
      return { text: `unexpected: ${prompt}` };
    });
    const root = started.tempDir("penguin-handover-");
    const workspace = started.tempDir("penguin-handover-ws-");
    configureProject(root, "default_project", modelEntry(kit));
    const database = await postgres.createDatabase("cluster_handover");
    const [a, b, c] = await startCluster(root, database);
    const sid = await newSession(a!.client, { workspace });
    const stream = await openStream(a!.client, sid);
    expect((await a!.client.post(`/api/sessions/${sid}/tasks`, text("waiting"))).status).toBe(202);
    await stream.until((e) => e.data.includes("this answe"));
    const queued = await b!.client.post(`/api/sessions/${sid}/tasks`, { ...text("later"), queueIfBusy: true });
    expect(queued.body.status).toBe("queued");

    // A stops gracefully: its run is aborted (carry-over kept), its row handed over, not deleted.
    a!.child.proc.kill("SIGTERM");
    expect(await a!.child.exited).toBe(0);
    await stream.close().catch(() => undefined);
    await until(() => answers(traceOf(root, sid)).includes("ran elsewhere"), "the queued follow-up to run on another node");
    expect([b!.nodeId, c!.nodeId]).toContain(await leaseHolder(database, sid));
    expect(userTexts(traceOf(root, sid))).toEqual(["waiting", "later"]);
    expect(modelTurns(kit).filter((r) => lastUserText(r) === "later")).toHaveLength(1);
  });

  it("a node whose lease row was taken (it stalled past its lease) unloads the session at its next renewal and leaves the new runner's file lease", async () => {
    // Two apps in this process (helpers/harness.ts, hand-driven tickers): a stall is the row
    // expiring while A does not tick.
    const database = await postgres.createDatabase("cluster_fencing");
    const a = await startHarness({ app: { database } });
    const nodes = [a];
    try {
      const b = await startHarness({ root: a.root, app: { database }, adminPassword: a.adminPassword });
      nodes.push(b);
      const sid = await newSession(await a.admin(), { workspace: a.workspace });
      const row = a.server.context.stores.sessions.get(sid)!;
      expect(a.server.context.sessions.peek(sid)?.core).toBeDefined();
      await expireLease(database, sid);
      await b.server.context.sessions.open(row);
      const bNode = b.server.context.cluster!.nodeId;
      expect(await leaseHolder(database, sid)).toBe(bNode);
      const leaseFile = sessionLeaseFile(agentPaths(a.root, "default_project", "default_agent"), sid);
      expect(JSON.parse(readFileSync(leaseFile, "utf8")).command).toBe(`penguin server node ${bNode}`);

      a.ticker.advance(1000);
      await until(() => a.server.context.sessions.peek(sid)?.core === undefined, "A to unload the session it lost");
      expect(b.server.context.sessions.peek(sid)?.core).toBeDefined();
      expect(await leaseHolder(database, sid)).toBe(bNode);
      expect(JSON.parse(readFileSync(leaseFile, "utf8")).command).toBe(`penguin server node ${bNode}`);
    } finally {
      for (const node of nodes.reverse()) await node.cleanup().catch(() => undefined);
    }
  }, 60_000);

  it("a node never sets aside a CLI's file lease, even one from another host: loading the session is refused and its row let go", async () => {
    const database = await postgres.createDatabase("cluster_cli_lease");
    const a = await startHarness({ app: { database } });
    try {
      const sid = await newSession(await a.admin(), { workspace: a.workspace });
      const row = a.server.context.stores.sessions.get(sid)!;
      // Unloaded (its row and file lease let go), then a CLI on another machine takes it.
      a.server.context.sessions.reloadAgent("default_project", "default_agent");
      await until(() => a.server.context.sessions.peek(sid)?.core === undefined, "the session to unload");
      expect(await leaseHolder(database, sid)).toBeUndefined();
      const leaseFile = sessionLeaseFile(agentPaths(a.root, "default_project", "default_agent"), sid);
      const cliLease = `${JSON.stringify({ pid: 4242, host: "laptop.elsewhere.example", command: "penguin chat", since: new Date().toISOString(), token: "0123456789abcdef0123456789abcdef" })}\n`;
      writeFileSync(leaseFile, cliLease);

      await expect(a.server.context.sessions.open(row)).rejects.toThrow(/penguin chat/);
      expect(readFileSync(leaseFile, "utf8")).toBe(cliLease);
      expect(await leaseHolder(database, sid)).toBeUndefined();
    } finally {
      await a.cleanup().catch(() => undefined);
    }
  }, 60_000);
});
