// Rows 10 and 11: the projections (projections/*) over a data root.
// - Row 10, offline rebuild: a generated data root of 1M trace lines (100 sessions of 10k
//   lines, the realistic turns of lib/trace-content.ts written by the real TraceWriter) is
//   rebuilt into a fresh projections.db as users run it: the built CLI,
//   `node apps/cli/bundle/main.js projections rebuild --json` (what `./penguin projections
//   rebuild` execs), as a child process, once with `--threads 1` and once with `--threads 2`.
//   The count is fixed because the automatic choice looks at the load, which writing the root
//   has just pushed over 1 (so it would pick one thread every time). The built CLI is built
//   first when stale, by the launcher's own build (apps/cli/scripts/cli-build.mjs). Figures:
//   events per second of the rebuild's own time (its summary's durationMs), events per CPU
//   second (the child's user + system, every thread's; steadier than wall time on a loaded
//   machine), the command's wall time (start to exit) and its peak RSS, read at exit by
//   process-usage.mjs preloaded into the child. The goal mark is on the built two-thread
//   rate: two threads is what the CLI picks by itself on an idle machine of two cores or
//   more, the machine the goal is set on. Secondary, as before: the same rebuild
//   from the TypeScript sources through tsx (rebuild-child.ts, two threads), whose worker
//   thread boots tsx too.
// - Row 19, rebuild into PostgreSQL (issue 32): the same generated root (200k lines by default,
//   smaller than row 10's 1M: a PostgreSQL rebuild of 1M lines takes minutes on a loaded
//   machine) rebuilt by the built CLI (`projections rebuild --database URL --json`, measured
//   from outside as row 10 does) and from the sources (rebuild-child.ts through tsx) into a fresh schema of a
//   real PostgreSQL 15 (started by apps/server/test/helpers/postgres.ts: initdb in a temp
//   folder, Unix socket; fsync off as in the tests) and swapped in, beside the same rebuild
//   into a SQLite file on one thread (the PostgreSQL build is one thread) in the same run,
//   interleaved. Figures: events/s of each rebuild's own time, per CPU second of the
//   rebuilding process (PostgreSQL's own CPU is not counted: it is another process), and for
//   the built CLI its wall time and peak RSS.
// - Row 11, live lag: a LiveProjectionRunner follows a data root while a session appends one
//   line at a time (a burst of a turn's lines every few tens of ms, as a running session
//   does); the lag is from the append returning to the line's row being visible in
//   the timeline's events (its event blocks) through the runner. p50 and p99.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, newSessionId, sessionDate, traceFilePath, TraceWriter, type Agent } from "@penguin/core";
import { zeroTokens, type SessionMetaPayload } from "@penguin/omnimessage";
import { LiveProjectionRunner } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { sessionEventCount, timelineProjection } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";
import { metric, msSince, type Metric, type RowResult } from "../lib/stats.js";
import { turnRecords } from "../lib/trace-content.js";
import { CLI_MAIN } from "./cli.js";

const PROJECTIONS = [sessionsProjection, usageProjection, timelineProjection];

function openWriter(agent: Agent, startedAt: Date): { sessionId: string; writer: TraceWriter } {
  const sessionId = newSessionId(startedAt);
  const meta: SessionMetaPayload = { session_id: sessionId, provider: "bench", model_id: "bench-model", model_context_window: 1_000_000, system_prompt: "You are a coding agent.", agent_state: agent.paths.agentState, workspace: agent.paths.root };
  const writer = new TraceWriter({ fileFor: (i) => traceFilePath(agent.paths, sessionDate(sessionId), sessionId, i), index: 1, meta, existing: false, fsync: false });
  return { sessionId, writer };
}

/** Writes `sessions` sessions of about `linesEach` lines under the agent's traces. */
export function generateSessions(agent: Agent, sessions: number, linesEach: number): number {
  let total = 0;
  for (let s = 0; s < sessions; s++) {
    const { writer } = openWriter(agent, new Date(Date.UTC(2026, 11, 1, 8, 0, s)));
    let usage = zeroTokens();
    let written = 2; // session_meta and tool_list_ready
    writer.setTools([]);
    for (let n = 1; written < linesEach; n++) {
      const turn = turnRecords(n, usage);
      usage = turn.session;
      for (const r of turn.records) writer.append(r);
      written += turn.records.length;
    }
    writer.close();
    total += written;
  }
  return total;
}

interface RebuildRun {
  events: number;
  /** The rebuild's own time, from its summary. */
  ms: number;
  cpuMs: number;
  maxRssKiB: number;
  /** The command's wall time, spawn to exit (built CLI only). */
  wallMs?: number;
  threads?: number;
}

/** Runs `node <args>` with `env`; resolves with its stdout once it exits 0. */
function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`node ${args.join(" ")} exited ${code}: ${err.trim().split("\n").slice(-5).join(" | ")}`))));
  });
}

/** The rebuild from the TypeScript sources (rebuild-child.ts through tsx) on `threads` threads, into `target` (a file or a postgres:// URL). */
async function runFromSources(root: string, threads: 1 | 2, target = join(root, "projections.db")): Promise<RebuildRun> {
  const out = await runNode(["--conditions=development", "--import", "tsx", new URL("./rebuild-child.ts", import.meta.url).pathname, root, target], { ...process.env, PENGUIN_BENCH_REBUILD_THREADS: String(threads) });
  return JSON.parse(out.trim().split("\n").at(-1)!) as RebuildRun;
}

/** The built CLI's `projections rebuild --threads N --json` on `root` (into `database` when given), measured from outside. */
async function runBuiltCli(root: string, threads: 1 | 2, usageFile: string, database?: string): Promise<RebuildRun> {
  rmSync(usageFile, { force: true });
  const preload = new URL("./process-usage.mjs", import.meta.url).href;
  const env: NodeJS.ProcessEnv = { ...process.env, PENGUIN_HOME: root, PENGUIN_BENCH_USAGE_FILE: usageFile };
  const t0 = process.hrtime.bigint();
  const out = await runNode(["--import", preload, CLI_MAIN, "projections", "rebuild", "--threads", String(threads), "--json", ...(database === undefined ? [] : ["--database", database])], env);
  const wallMs = msSince(t0);
  const summary = JSON.parse(out.trim().split("\n").at(-1)!) as { events: number; durationMs: number; threads: number };
  if (summary.threads !== threads) throw new Error(`the built CLI rebuilt on ${summary.threads} thread(s) where --threads ${threads} was asked`);
  const usage = JSON.parse(readFileSync(usageFile, "utf8")) as { cpuMs: number; maxRssKiB: number };
  return { events: summary.events, ms: summary.durationMs, cpuMs: usage.cpuMs, maxRssKiB: usage.maxRssKiB, wallMs, threads: summary.threads };
}

/**
 * Makes sure CLI_MAIN is the current build, building it as ./penguin does when it is stale;
 * throws a message saying what to do when that build fails. PENGUIN_BENCH_CLI (another
 * checkout's bundle) is taken as it is.
 */
async function ensureBuiltCli(): Promise<void> {
  if (process.env.PENGUIN_BENCH_CLI !== undefined) return;
  // A plain ES module script without type declarations, shared with the launcher and the tests.
  const build = (await import(new URL("../../../apps/cli/scripts/cli-build.mjs", import.meta.url).href)) as { cliBuildIsStale(): boolean; buildCli(): Promise<{ ok: boolean; output: string }> };
  if (!build.cliBuildIsStale()) return;
  process.stderr.write("bench: row 10: building the CLI (tsc -b apps/cli, then the bundle)…\n");
  const r = await build.buildCli();
  if (!r.ok) throw new Error(`the CLI bundle (${CLI_MAIN}) is stale and its build failed; run \`node apps/cli/scripts/cli-build.mjs --force\` to see why:\n${r.output.slice(-2000)}`);
}

/** The figures of one way of running the rebuild. */
function rebuildMetrics(label: string, runs: readonly RebuildRun[], goal?: string): Metric[] {
  const metrics = [
    metric(`${label}: events/s of the rebuild's time`, "events/s", "higher", runs.map((r) => r.events / (r.ms / 1000)), goal === undefined ? {} : { goal }),
    // On a shared machine the wall rate moves with the load; the rate per CPU second much less.
    metric(`${label}: events per CPU second`, "events/s", "higher", runs.map((r) => r.events / (r.cpuMs / 1000))),
  ];
  const walls = runs.flatMap((r) => (r.wallMs === undefined ? [] : [r.wallMs / 1000]));
  if (walls.length > 0) metrics.push(metric(`${label}: command wall time`, "s", "lower", walls));
  metrics.push(metric(`${label}: peak RSS`, "MiB", "lower", runs.map((r) => r.maxRssKiB / 1024)));
  return metrics;
}

export async function rowRebuild(runs: number, lines = 1_000_000): Promise<RowResult> {
  await ensureBuiltCli();
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-rebuild-"));
  try {
    const agent = await createAgent({ root, env: {} });
    const sessions = Math.max(1, Math.round(lines / 10_000));
    const t0 = process.hrtime.bigint();
    const written = generateSessions(agent, sessions, Math.ceil(lines / sessions));
    const generatedMs = msSince(t0);
    const usageFile = join(root, "rebuild-usage.json");
    const builtTwo: RebuildRun[] = [];
    const builtOne: RebuildRun[] = [];
    const sources: RebuildRun[] = [];
    // Interleaved, so a change in the machine's load hits every way alike.
    for (let i = 0; i < runs; i++) {
      builtTwo.push(await runBuiltCli(root, 2, usageFile));
      builtOne.push(await runBuiltCli(root, 1, usageFile));
      sources.push(await runFromSources(root, 2));
    }
    const events = builtTwo.at(-1)?.events ?? 0;
    const metrics: Metric[] = [
      ...rebuildMetrics("built CLI --threads 2", builtTwo, "≥ 200k/s"),
      ...rebuildMetrics("built CLI --threads 1", builtOne),
      ...rebuildMetrics("sources via tsx, 2 threads", sources),
    ];
    return { row: 10, title: `Projections rebuild (sessions, usage, timeline with snapshots) of a generated data root: ${written} lines in ${sessions} sessions (${events} events read; written in ${(generatedMs / 1000).toFixed(1)} s)`, metrics };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function rowRebuildPostgres(runs: number, lines = 200_000): Promise<RowResult> {
  await ensureBuiltCli();
  // A test helper, imported only when this row runs: the one way the repository starts a real PostgreSQL.
  const { startPostgres } = await import("../../../apps/server/test/helpers/postgres.js");
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-rebuild-pg-"));
  const postgres = await startPostgres();
  try {
    const url = await postgres.createDatabase("bench_rebuild");
    const agent = await createAgent({ root, env: {} });
    const sessions = Math.max(1, Math.round(lines / 10_000));
    const written = generateSessions(agent, sessions, Math.ceil(lines / sessions));
    const usageFile = join(root, "rebuild-usage.json");
    const intoPostgres: RebuildRun[] = [];
    const intoSqlite: RebuildRun[] = [];
    const builtPostgres: RebuildRun[] = [];
    const builtSqlite: RebuildRun[] = [];
    // Interleaved, so a change in the machine's load hits both engines alike.
    for (let i = 0; i < runs; i++) {
      builtPostgres.push(await runBuiltCli(root, 1, usageFile, url));
      builtSqlite.push(await runBuiltCli(root, 1, usageFile));
      intoPostgres.push(await runFromSources(root, 1, url));
      intoSqlite.push(await runFromSources(root, 1));
    }
    const events = intoPostgres.at(-1)?.events ?? 0;
    if (events !== intoSqlite.at(-1)?.events) throw new Error(`the PostgreSQL rebuild read ${events} events, the SQLite one ${intoSqlite.at(-1)?.events}`);
    return {
      row: 19,
      title: `Projections rebuild into PostgreSQL (fresh schema swapped in) beside SQLite, one thread each, built CLI and sources via tsx: ${written} lines in ${sessions} sessions (${events} events)`,
      metrics: [
        ...rebuildMetrics("built CLI --database (PostgreSQL 15, local socket)", builtPostgres),
        ...rebuildMetrics("built CLI --threads 1 (SQLite projections.db)", builtSqlite),
        ...rebuildMetrics("sources via tsx into PostgreSQL", intoPostgres),
        ...rebuildMetrics("sources via tsx into SQLite", intoSqlite),
      ],
    };
  } finally {
    await postgres.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function rowLiveLag(samples: number): Promise<RowResult> {
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-lag-"));
  const agent = await createAgent({ root, env: {} });
  // A few sessions already there, so a pass has files to look at besides the one growing.
  generateSessions(agent, 20, 2_000);
  const runner = await LiveProjectionRunner.start({ root, file: join(root, "projections.db"), projections: PROJECTIONS });
  const { sessionId, writer } = openWriter(agent, new Date(Date.UTC(2026, 11, 1, 9, 0, 0)));
  // The runner's own timers do not hold the process open (a host does); this one does while the row waits.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    writer.setTools([]);
    const store = await runner.store();
    // The timeline keeps its events in blocks of lines: counted through its own query.
    const visible = (): Promise<number> => sessionEventCount(store.db, sessionId);
    // Every pass the runner makes, look whether the lines waited for are in.
    const waiting: { count: number; resolve: () => void }[] = [];
    runner.onCaughtUp(async () => {
      if (waiting.length === 0) return;
      const n = await visible();
      for (const w of waiting.splice(0)) {
        if (n >= w.count) w.resolve();
        else waiting.push(w);
      }
    });
    const lags: number[] = [];
    let usage = zeroTokens();
    let lines = 2;
    for (let n = 1; lags.length < samples; n++) {
      const turn = turnRecords(n, usage);
      usage = turn.session;
      for (const r of turn.records) {
        writer.append(r);
        lines += 1;
        const t0 = process.hrtime.bigint();
        await new Promise<void>((resolve) => waiting.push({ count: lines, resolve }));
        lags.push(msSince(t0));
        if (lags.length >= samples) break;
        // The next append comes a little later, as a session's lines do.
        await new Promise((r) => setTimeout(r, 5 + (n % 4) * 10));
      }
    }
    const sorted = [...lags].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
    const p50 = sorted[Math.floor(sorted.length / 2)]!;
    return {
      row: 11,
      title: `Projections live lag: append → row visible through the live runner (${samples} appends, 20 other sessions on the root)`,
      metrics: [metric(`append → timeline row visible (p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms)`, "ms", "lower", lags, { goal: "p99 ≤ 200 ms" })],
    };
  } finally {
    clearInterval(keepAlive);
    writer.close();
    await runner.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
