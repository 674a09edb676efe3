// The server benchmark: N sessions, each streaming one model turn of about `events` events
// at once, over real HTTP and SSE, with the server in its own process and the fake model
// (testkit) pacing its deltas like a provider would. It reports the p50 and p99 latency
// from a message being made in the server to its arrival at a subscriber, and the server
// process's peak RSS. Goal (printed by the callers, never asserted): 200 sessions with
// p99 ≤ 50 ms. The clients and the testkit share one process, so under heavy load part of
// the latency measured is theirs.
//
// `serverDir` runs the same load against another tree's server instead: a checkout of an older
// commit (the Hono server, from git history; hono-tree.ts makes one), installed with its own
// dependencies. Only its `packages/server/src/start.ts` (or `apps/server/src/start.ts`) runs, in
// that tree; the fake model, the clients and the project config are this bench's, so the two
// servers see exactly the same traffic.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectPaths, writeProjectConfig } from "@penguin/core";
import { startTestkit, type ScriptStep } from "@penguin/testkit";
import { followRun } from "./sse-client.js";

export interface ServerBenchOptions {
  /** Fewer sessions and events, for a quick look. */
  quick?: boolean;
  /** Concurrent sessions (default 200, quick 20). */
  sessions?: number;
  /** Streamed text deltas per turn (default 200, quick 100). */
  events?: number;
  /** Pause between the model's SSE events, ms (default 5). */
  delayMs?: number;
  /** Another tree (a checkout of an older commit) whose server runs instead of this one's. */
  serverDir?: string;
  /**
   * Run the server from its build (`dist/`, made by `tsc -b`) with node alone instead of its
   * TypeScript sources through tsx: what a deployed server loads, without the transpiler's own
   * memory (tsx's loader thread, transformed sources and source maps: ~35 MB of RSS).
   */
  built?: boolean;
  /** More node flags for the server process (`--max-semi-space-size=4`, `--trace-gc`…), to look into its memory. */
  nodeArgs?: readonly string[];
  /**
   * Write a V8 heap snapshot of the server process (into `snapshotDir`, default the working
   * directory) the first time its RSS reaches this many MB, to see where the memory is at the
   * peak (heap-report.mjs reads it). Writing it stalls the server and doubles its RSS for a
   * while, so the figures of such a run are not comparable.
   */
  snapshotAtMb?: number;
  snapshotDir?: string;
}

export interface ServerBenchResult {
  p50: number;
  p99: number;
  rssMb: number;
  sessions: number;
  /** Events received per session (for the record). */
  eventsPerSession: number;
  wallMs: number;
  /** The server's V8 heap in use at the end of the run, MB (NaN when it did not say). */
  heapUsedMb: number;
  /** Memory held outside the V8 heap (Buffers, native) at the end of the run, MB. */
  externalMb: number;
}

const CHILD = fileURLToPath(new URL("./server-child.mjs", import.meta.url));
/** The node flags `./penguin server` starts the server with (see the launcher script): measured as it is run. */
export const SERVER_NODE_FLAGS: readonly string[] = ["--optimize-for-size"];
/** The allocator settings the launcher gives the server (see the launcher script). */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "1048576" };
const CHUNK = 4;

export async function runServerBench(opts: ServerBenchOptions = {}): Promise<ServerBenchResult> {
  const sessions = opts.sessions ?? (opts.quick ? 20 : 200);
  const events = opts.events ?? (opts.quick ? 100 : 200);
  const delayMs = opts.delayMs ?? 5;
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-server-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-bench-ws-"));
  const answer = "word".repeat(events).slice(0, events * CHUNK);
  const step: ScriptStep = () => ({ text: answer, chunkSize: CHUNK, delayMs, usage: { input: 100, output: events } });
  const kit = await startTestkit({ script: Array.from({ length: sessions + 10 }, () => step) });
  writeProjectConfig(projectPaths(root, "default_project").projectConfig, {
    default_model: { provider: "testkit", model_id: "bench-model" },
    models: [{ provider: "testkit", model_id: "bench-model", client_type: "openai-chat", base_url: kit.baseUrl("openai-chat"), api_key: "sk-bench-000000000000", context_window: 128000 }],
  });
  const entry = opts.serverDir === undefined ? undefined : serverEntryIn(opts.serverDir, opts.built === true);
  // From sources the server's TypeScript goes through tsx; built, node alone runs the child and the dist/ build.
  const loader = opts.built === true ? [] : ["--conditions=development", "--import", "tsx"];
  if (opts.snapshotDir !== undefined) mkdirSync(opts.snapshotDir, { recursive: true });
  const snapshotFlags = opts.snapshotAtMb === undefined ? [] : ["--heapsnapshot-signal=SIGUSR2", ...(opts.snapshotDir === undefined ? [] : [`--diagnostic-dir=${opts.snapshotDir}`])];
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...(opts.nodeArgs ?? []), ...snapshotFlags, ...loader, CHILD], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...SERVER_ENV,
      PENGUIN_BENCH_ROOT: root,
      PENGUIN_BENCH_WORKSPACE_ROOT: tmpdir(),
      ...(entry === undefined ? {} : { PENGUIN_BENCH_SERVER_ENTRY: entry }),
    },
    ...(opts.serverDir === undefined ? {} : { cwd: opts.serverDir }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let childOutput = "";
  child.stdout?.on("data", (chunk: Buffer) => (childOutput += chunk.toString("utf8")));
  let result: Omit<ServerBenchResult, "heapUsedMb" | "externalMb"> | undefined;
  const stopWatching = opts.snapshotAtMb === undefined ? () => undefined : snapshotWhenRss(child.pid, opts.snapshotAtMb);
  try {
    const url = await readyUrl(child.stdout);
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    const login = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password }) });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) });
    // The server holds every other route until the initial password is changed.
    await fetch(`${url}/api/me/password`, { method: "PUT", headers: { "content-type": "application/json", cookie }, body: JSON.stringify({ oldPassword: password, newPassword: password }) });

    const ids: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const res = await post("/api/projects/default_project/agents/default_agent/sessions", { workspace });
      const body: unknown = await res.json();
      const id = typeof body === "object" && body !== null && "id" in body && typeof body.id === "string" ? body.id : undefined;
      if (id === undefined) throw new Error(`session create answered ${res.status}`);
      ids.push(id);
    }
    const streams = await Promise.all(ids.map((id) => followRun(`${url}/api/sessions/${id}/stream`, cookie)));
    await Promise.all(streams.map((s) => s.ready));
    const started = performance.now();
    const posted = await Promise.all(ids.map((id) => post(`/api/sessions/${id}/tasks`, { input: [{ type: "text", text: "stream please" }] })));
    if (posted.some((r) => r.status !== 202)) throw new Error(`a task was refused: ${posted.map((r) => r.status).join(",")}`);
    const results = await Promise.all(streams.map((s) => s.done));
    const wallMs = performance.now() - started;
    const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
    result = {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      rssMb: peakRssMb(child.pid),
      sessions,
      eventsPerSession: Math.round(results.reduce((n, r) => n + r.events, 0) / results.length),
      wallMs,
    };
  } finally {
    stopWatching();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    await kit.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
  if (result === undefined) throw new Error("the server bench produced no figures");
  const memory = /MEMORY (\{.*\})/.exec(childOutput)?.[1];
  const parsed = memory === undefined ? undefined : (JSON.parse(memory) as { heapUsed: number; external: number });
  return { ...result, heapUsedMb: parsed === undefined ? Number.NaN : parsed.heapUsed / 1048576, externalMb: parsed === undefined ? Number.NaN : parsed.external / 1048576 };
}

/** The start module of the server in another tree, in either layout (packages/ or apps/), its build's when `built`. */
export function serverEntryIn(dir: string, built = false): string {
  const file = built ? "dist/start.js" : "src/start.ts";
  for (const app of ["packages/server", "apps/server"]) {
    const entry = join(dir, app, file);
    if (existsSync(entry)) return entry;
  }
  throw new Error(`${dir} has no packages/server/${file} or apps/server/${file}: give the root of a checkout of this repository${built ? ", built with npx tsc -b" : ""}`);
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/** Signals the server to write a heap snapshot once its RSS (VmRSS, sampled every 50 ms) reaches `mb`; returns the stop. */
function snapshotWhenRss(pid: number | undefined, mb: number): () => void {
  const timer = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m === null || Number(m[1]) / 1024 < mb) return;
      clearInterval(timer);
      process.kill(pid ?? 0, "SIGUSR2");
      process.stderr.write(`server RSS reached ${mb} MB: heap snapshot requested\n`);
    } catch {
      clearInterval(timer);
    }
  }, 50);
  return () => clearInterval(timer);
}

/** Peak resident memory of the server process (VmHWM), in MB; NaN where /proc is missing. */
function peakRssMb(pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? Number.NaN : Number(m[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

function readyUrl(stdout: NodeJS.ReadableStream | null): Promise<string> {
  return new Promise((resolve, reject) => {
    if (stdout === null) return reject(new Error("the server child has no stdout"));
    let text = "";
    stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const m = /READY (\S+)/.exec(text);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    stdout.once("end", () => reject(new Error(`the server child exited before it was ready:\n${text}`)));
  });
}
