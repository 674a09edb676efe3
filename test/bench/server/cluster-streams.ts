// The cluster stream benchmark (issue 32): N sessions streaming to N SSE clients spread over
// several server nodes that share one data root and one PostgreSQL (each node its own
// process, server-child.mjs), beside the same load on one node with facts.db (SQLite). Session
// j is created and run on node j mod nodes; its client reads the stream from node
// (j + ⌊j / nodes⌋) mod nodes, so a third of the clients are on the running node and the rest
// on another one (fed by LISTEN/NOTIFY and the trace files).
//
// Figures: the latency of each durable event (a trace record) from the moment the message was
// made in the running node (its envelope's timestamp, just before it is appended) to its arrival
// at the client, p50 and p99, over all clients and over those of other nodes; events lost (the
// trace's records of the run the client never got) and duplicated (goal 0 both); each node's
// peak RSS (PENGUIN_BENCH_CPU_PROF=<dir> profiles each node). Partials reach only clients of the running node and are not counted. A client
// waits for its run's `token_usage` record (the run's last); one that has not seen it 120 s
// after the tasks were posted counts what it lacks as lost.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentPaths, formatPosition, parseTraceText, projectPaths, sessionTraceFiles, writeProjectConfig } from "@penguin/core";
import { startTestkit, type ScriptStep } from "@penguin/testkit";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "./index.js";

const CHILD = fileURLToPath(new URL("./server-child.mjs", import.meta.url));
const DURABLE_ID = /^\d{3}:\d{6}$/;
const CLIENT_DEADLINE_MS = 120_000;
const CHUNK = 4;

export interface ClusterStreamOptions {
  sessions: number;
  /** Server nodes; each gets a process of its own. */
  nodes: number;
  /** A postgres:// URL (all nodes share it), or undefined for facts.db (then `nodes` must be 1). */
  database: string | undefined;
  /** Streamed text deltas per answer. */
  events: number;
  /** Pause between the model's SSE events, ms. */
  delayMs: number;
}

export interface ClusterStreamResult {
  sessions: number;
  nodes: number;
  p50: number;
  p99: number;
  /** The same over clients of a node that does not run their session (NaN with one node). */
  remoteP50: number;
  remoteP99: number;
  received: number;
  lost: number;
  duplicated: number;
  /** Each node's peak RSS, MB. */
  rssMb: number[];
  wallMs: number;
}

interface Node {
  child: ChildProcess;
  url: string;
  cookie: string;
}

export async function runClusterStreamBench(opts: ClusterStreamOptions): Promise<ClusterStreamResult> {
  if (opts.database === undefined && opts.nodes !== 1) throw new Error("several nodes need a PostgreSQL database (facts.db serves one node)");
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-cluster-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-bench-cluster-ws-"));
  const answer = "word".repeat(opts.events).slice(0, opts.events * CHUNK);
  const step: ScriptStep = () => ({ text: answer, chunkSize: CHUNK, delayMs: opts.delayMs, usage: { input: 100, output: opts.events } });
  const kit = await startTestkit({ script: Array.from({ length: opts.sessions + 10 }, () => step) });
  writeProjectConfig(projectPaths(root, "default_project").projectConfig, {
    default_model: { provider: "testkit", model_id: "bench-model" },
    models: [{ provider: "testkit", model_id: "bench-model", client_type: "openai-chat", base_url: kit.baseUrl("openai-chat"), api_key: "sk-bench-000000000000", context_window: 128000 }],
  });
  const nodes: Node[] = [];
  try {
    // The first node makes the admin and its initial password (changed at once: later nodes find it changed).
    let password: string | undefined;
    for (let i = 0; i < opts.nodes; i++) {
      const started = await startNode(root, opts.database, password);
      nodes.push(started.node);
      password = started.password;
    }
    const post = (node: Node, path: string, body: unknown) => fetch(`${node.url}${path}`, { method: "POST", headers: { "content-type": "application/json", cookie: node.cookie }, body: JSON.stringify(body) });
    const runsOn = (j: number) => nodes[j % nodes.length]!;
    const readFrom = (j: number) => nodes[(j + Math.floor(j / nodes.length)) % nodes.length]!;

    const sessions: { id: string; cursor: string; remote: boolean }[] = [];
    for (let j = 0; j < opts.sessions; j++) {
      const node = runsOn(j);
      const res = await post(node, "/api/projects/default_project/agents/default_agent/sessions", { workspace });
      const body = (await res.json()) as { id?: string };
      if (typeof body.id !== "string") throw new Error(`session create answered ${res.status}`);
      const page = (await (await fetch(`${node.url}/api/sessions/${body.id}/messages`, { headers: { cookie: node.cookie } })).json()) as { cursor?: string };
      if (typeof page.cursor !== "string") throw new Error("the history page has no cursor");
      sessions.push({ id: body.id, cursor: page.cursor, remote: readFrom(j) !== node });
    }
    const clients = await Promise.all(sessions.map((s, j) => followDurable(readFrom(j), s.id, s.cursor)));
    await Promise.all(clients.map((c) => c.ready));
    const started = performance.now();
    const deadline = setTimeout(() => clients.forEach((c) => c.stop()), CLIENT_DEADLINE_MS);
    const posted = await Promise.all(sessions.map((s, j) => post(runsOn(j), `/api/sessions/${s.id}/tasks`, { input: [{ type: "text", text: "stream please" }] })));
    if (posted.some((r) => r.status !== 202)) throw new Error(`a task was refused: ${posted.map((r) => r.status).join(",")}`);
    const results = await Promise.all(clients.map((c) => c.done));
    clearTimeout(deadline);
    const wallMs = performance.now() - started;

    let lost = 0;
    let duplicated = 0;
    let received = 0;
    sessions.forEach((s, j) => {
      const ids = results[j]!.ids;
      received += ids.length;
      duplicated += ids.length - new Set(ids).size;
      const got = new Set(ids);
      lost += expectedIds(root, s.id, s.cursor).filter((id) => !got.has(id)).length;
    });
    const all = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const remote = results.filter((_r, j) => sessions[j]!.remote).flatMap((r) => r.latencies).sort((a, b) => a - b);
    return {
      sessions: opts.sessions,
      nodes: opts.nodes,
      p50: percentile(all, 0.5),
      p99: percentile(all, 0.99),
      remoteP50: percentile(remote, 0.5),
      remoteP99: percentile(remote, 0.99),
      received,
      lost,
      duplicated,
      rssMb: nodes.map((n) => peakRssMb(n.child.pid)),
      wallMs,
    };
  } finally {
    await Promise.all(nodes.map((n) => stopNode(n.child)));
    await kit.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** `PENGUIN_BENCH_CPU_PROF=<dir>`: each node writes a CPU profile there when it stops (`node --cpu-prof`). */
function profileFlags(): string[] {
  const dir = process.env.PENGUIN_BENCH_CPU_PROF;
  return dir === undefined || dir === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${dir}`];
}

async function startNode(root: string, database: string | undefined, knownPassword: string | undefined): Promise<{ node: Node; password: string }> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...profileFlags(), "--conditions=development", "--import", "tsx", CHILD], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...SERVER_ENV, PENGUIN_BENCH_ROOT: root, PENGUIN_BENCH_WORKSPACE_ROOT: tmpdir(), ...(database === undefined ? {} : { PENGUIN_BENCH_DATABASE: database }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let url: string;
  try {
    url = await readyUrl(child);
  } catch (error) {
    await stopNode(child);
    throw error;
  }
  const password = knownPassword ?? readFileSync(join(root, "initial-admin-password"), "utf8").trim();
  const login = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password }) });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  // The server holds every other route until the initial password is changed (once: the facts are shared).
  if (knownPassword === undefined) await fetch(`${url}/api/me/password`, { method: "PUT", headers: { "content-type": "application/json", cookie }, body: JSON.stringify({ oldPassword: password, newPassword: password }) });
  return { node: { child, url, cookie }, password };
}

async function stopNode(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** The ids of the trace's records of the run: after the cursor, through the first `token_usage`. */
function expectedIds(root: string, sessionId: string, cursor: string): string[] {
  const ids: string[] = [];
  let after = false;
  for (const f of sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sessionId)) {
    const content = parseTraceText(readFileSync(f.file, "utf8"));
    for (let i = 0; i < content.messages.length; i++) {
      const id = formatPosition({ file: f.index, line: content.lines[i]! });
      if (after) {
        ids.push(id);
        if (isRunEnd(content.messages[i])) return ids;
      }
      if (id === cursor) after = true;
    }
  }
  return ids;
}

function isRunEnd(message: unknown): boolean {
  const m = message as { type?: string; payload?: { type?: string } };
  return m.type === "event_msg" && m.payload?.type === "token_usage";
}

/** Reads one session's stream from `node`: the durable records' ids and latencies, until the run's `token_usage`. */
async function followDurable(node: Node, sessionId: string, cursor: string): Promise<{ ready: Promise<void>; done: Promise<{ ids: string[]; latencies: number[] }>; stop(): void }> {
  const res = await fetch(`${node.url}/api/sessions/${sessionId}/stream`, { headers: { cookie: node.cookie, "last-event-id": cursor } });
  if (res.body === null || res.status !== 200) throw new Error(`stream of ${sessionId} answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const ids: string[] = [];
  const latencies: number[] = [];
  const done = (async () => {
    let buffer = "";
    for (;;) {
      const { done: ended, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (ended || value === undefined) return { ids, latencies };
      const arrived = Date.now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        let id: string | undefined;
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("id: ")) id = line.slice(4);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data === "") continue;
        // The task state sent to each new subscriber (no id): the replay is done, the client follows.
        if (event === "server_event") {
          if (id === undefined) markReady();
          continue;
        }
        if (id === undefined || !DURABLE_ID.test(id)) continue;
        const message = JSON.parse(data) as { timestamp?: string };
        ids.push(id);
        if (message.timestamp !== undefined) latencies.push(arrived - Date.parse(message.timestamp));
        if (isRunEnd(message)) {
          await reader.cancel().catch(() => undefined);
          return { ids, latencies };
        }
      }
    }
  })();
  return { ready, done, stop: () => void reader.cancel().catch(() => undefined) };
}

function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const m = /READY (\S+)/.exec(text);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`a server node exited (${code}) before it was ready:\n${text}`)));
  });
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

function peakRssMb(pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? Number.NaN : Number(m[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}
