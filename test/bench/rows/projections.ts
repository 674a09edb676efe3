// Rows 10 and 11: the projections (projections/*) over a data root.
// - Row 10, offline rebuild: a generated data root of 1M trace lines (100 sessions of 10k
//   lines, the realistic turns of lib/trace-content.ts written by the real TraceWriter) is
//   rebuilt into a fresh projections.db by a child process (rebuild-child.ts), as
//   `penguin projections rebuild` does: events per second of wall time and of CPU time (the
//   child's user + system; steadier than wall time on a loaded machine), and its peak RSS.
// - Row 11, live lag: a LiveProjectionRunner follows a data root while a session appends one
//   line at a time (a burst of a turn's lines every few tens of ms, as a running session
//   does); the lag is from the append returning to the line's row being visible in
//   the timeline's events (its event blocks) through the runner. p50 and p99.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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

function runChild(root: string, file: string): Promise<{ events: number; files: number; ms: number; cpuMs: number; maxRssKiB: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=development", "--import", "tsx", new URL("./rebuild-child.ts", import.meta.url).pathname, root, file], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`rebuild child exited ${code}`))));
  });
}

export async function rowRebuild(runs: number, lines = 1_000_000): Promise<RowResult> {
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-rebuild-"));
  try {
    const agent = await createAgent({ root, env: {} });
    const sessions = Math.max(1, Math.round(lines / 10_000));
    const t0 = process.hrtime.bigint();
    const written = generateSessions(agent, sessions, Math.ceil(lines / sessions));
    const generatedMs = msSince(t0);
    const rates: number[] = [];
    const perCpu: number[] = [];
    const rss: number[] = [];
    let events = 0;
    for (let i = 0; i < runs; i++) {
      const r = await runChild(root, join(root, "projections.db"));
      events = r.events;
      rates.push(r.events / (r.ms / 1000));
      perCpu.push(r.events / (r.cpuMs / 1000));
      rss.push(r.maxRssKiB / 1024);
    }
    const metrics: Metric[] = [
      metric("rebuild: events per second (sessions, usage, timeline with snapshots)", "events/s", "higher", rates, { goal: "≥ 200k/s" }),
      // On a shared machine the wall rate moves with the load; the rate per CPU second much less.
      metric("rebuild: events per CPU second of the rebuilding process (user + system)", "events/s", "higher", perCpu),
      metric("rebuild: peak RSS of the rebuilding process", "MiB", "lower", rss),
    ];
    return { row: 10, title: `Projections rebuild of a generated data root: ${written} lines in ${sessions} sessions (${events} events read; written in ${(generatedMs / 1000).toFixed(1)} s)`, metrics };
  } finally {
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
