// The server benchmark: N sessions, each streaming one model turn of about `events` events
// at once, over real HTTP and SSE, with the server in its own process and the fake model
// (testkit) pacing its deltas like a provider would. It reports the p50 and p99 latency
// from a message being made in the server to its arrival at a subscriber, and the server
// process's peak RSS. Goal (printed by the callers, never asserted): 200 sessions with
// p99 ≤ 50 ms. The clients and the testkit share one process, so under heavy load part of
// the latency measured is theirs.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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
}

export interface ServerBenchResult {
  p50: number;
  p99: number;
  rssMb: number;
  sessions: number;
  /** Events received per session (for the record). */
  eventsPerSession: number;
  wallMs: number;
}

const CHILD = fileURLToPath(new URL("./server-child.ts", import.meta.url));
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
  const child = spawn(process.execPath, ["--conditions=development", "--import", "tsx", CHILD], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PENGUIN_BENCH_ROOT: root, PENGUIN_BENCH_WORKSPACE_ROOT: tmpdir() },
    stdio: ["ignore", "pipe", "inherit"],
  });
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
    return {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      rssMb: peakRssMb(child.pid),
      sessions,
      eventsPerSession: Math.round(results.reduce((n, r) => n + r.events, 0) / results.length),
      wallMs,
    };
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    await kit.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
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
