// Rows 4 and 5: the trace on disk.
// Row 4 appends realistic turns through the real TraceWriter with fsync after each commit
// point, as the durability rule says (request_end, tool_call_output), and reports records/s;
// the same without fsync is printed beside it to show what durability costs.
// Row 5 writes traces of 1k, 10k and 100k lines (about 50 MB at 100k) with the real writer,
// then times `agent.resumeSession` up to the first byte of the next request arriving at the
// model: a TCP relay in front of the testkit notes when that byte comes through (and the
// process CPU time spent until then, printed beside the wall time for 100k lines). The
// baseline is reading the same file (readFileSync), measured in the same run.
// Each run's session is disposed, which leaves the file's resume snapshot (as does the end of
// a task that wrote 2000 lines or more): the next resume folds only what came after it. For
// 100k lines the same is also timed without that snapshot (deleted before each run), the
// case of a trace no session of this version left one for: the whole file is folded.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newSessionId, resumeSnapshotFile, TraceWriter, sessionDate, traceFilePath, type Agent } from "@penguin/core";
import { userText, zeroTokens, type SessionMetaPayload } from "@penguin/omnimessage";
import { startTestkit } from "@penguin/testkit";
import { metric, msSince, type Metric, type RowResult } from "../lib/stats.js";
import { turnRecords } from "../lib/trace-content.js";
import { makeWorld, MODEL, PROVIDER } from "../lib/world.js";

function writer(dir: string, fsync: boolean): TraceWriter {
  const sessionId = newSessionId(new Date());
  const meta: SessionMetaPayload = { session_id: sessionId, provider: PROVIDER, model_id: MODEL, model_context_window: 1_000_000, system_prompt: "bench", agent_state: dir, workspace: dir };
  return new TraceWriter({ fileFor: (i) => join(dir, `${sessionId}_${String(i).padStart(3, "0")}.jsonl`), index: 1, meta, existing: false, fsync });
}

function appendRate(records: number, fsync: boolean): number {
  const dir = mkdtempSync(join(tmpdir(), "penguin-bench-append-"));
  try {
    const w = writer(dir, fsync);
    let session = zeroTokens();
    let written = 0;
    const start = process.hrtime.bigint();
    for (let n = 1; written < records; n++) {
      const turn = turnRecords(n, session);
      session = turn.session;
      for (const r of turn.records) w.append(r);
      written += turn.records.length;
    }
    const ms = msSince(start);
    w.close();
    return written / (ms / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function rowAppend(runs: number, records = 3000): Promise<RowResult> {
  const synced: number[] = [];
  const unsynced: number[] = [];
  appendRate(300, true);
  for (let i = 0; i < runs; i++) {
    synced.push(appendRate(records, true));
    unsynced.push(appendRate(records, false));
  }
  return {
    row: 4,
    title: `Trace append throughput (${records} realistic records, ~9 per turn, 2 fsyncs per turn)`,
    metrics: [metric("fsync at commit points", "records/s", "higher", synced), metric("no fsync (reference)", "records/s", "higher", unsynced)],
  };
}

/** A relay to `target` that reports when the first byte of the next request arrives. */
export async function firstByteRelay(target: { host: string; port: number }): Promise<{ url: string; next(): Promise<{ at: bigint; cpu: NodeJS.CpuUsage }>; close(): Promise<void> }> {
  const waiters: ((t: { at: bigint; cpu: NodeJS.CpuUsage }) => void)[] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    // Connections are kept alive, so a request is not a connection: the first byte from any
    // client after a waiter was armed is the next request (nothing else is in flight then).
    client.on("data", (d) => {
      waiters.shift()?.({ at: process.hrtime.bigint(), cpu: process.cpuUsage() });
      upstream.write(d);
    });
    upstream.pipe(client);
    client.on("end", () => upstream.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.unref();
      }),
  };
}

/** A resumable trace of about `lines` lines for a session of `agent`, written by the real writer. */
export function writeTrace(agent: Agent, workspace: string, lines: number): { sessionId: string; file: string; bytes: number } {
  const sessionId = newSessionId(new Date());
  const meta: SessionMetaPayload = {
    session_id: sessionId,
    provider: PROVIDER,
    model_id: MODEL,
    model_context_window: 1_000_000,
    system_prompt: "You are a coding agent.",
    agent_state: agent.paths.agentState,
    workspace,
  };
  const fileFor = (i: number) => traceFilePath(agent.paths, sessionDate(sessionId), sessionId, i);
  const file = fileFor(1);
  const w = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
  let session = zeroTokens();
  let written = 1;
  for (let n = 1; written < lines; n++) {
    const turn = turnRecords(n, session);
    session = turn.session;
    for (const r of turn.records) w.append(r);
    written += turn.records.length;
  }
  w.close();
  return { sessionId, file, bytes: statSync(file).size };
}

export async function rowResume(runsFor: (lines: number) => number, sizes = [1000, 10_000, 100_000]): Promise<RowResult> {
  const kit = await startTestkit();
  const upstream = new URL(kit.url);
  const relay = await firstByteRelay({ host: upstream.hostname, port: Number(upstream.port) });
  const world = await makeWorld(`${relay.url}/v1`);
  const metrics: Metric[] = [];
  const notes: string[] = [];
  try {
    for (const lines of sizes) {
      const { sessionId, file, bytes } = writeTrace(world.agent, world.workspace, lines);
      notes.push(`${lines} lines = ${(bytes / 1e6).toFixed(1)} MB`);
      const timed = async (withSnapshot: boolean): Promise<{ resume: number[]; resumeCpu: number[]; read: number[] }> => {
        const resume: number[] = [];
        const resumeCpu: number[] = [];
        const read: number[] = [];
        const runs = runsFor(lines);
        for (let i = 0; i <= runs; i++) {
          if (!withSnapshot) rmSync(resumeSnapshotFile(file), { force: true });
          // Past the shortest file a snapshot is written for (2000 lines), a disposed run leaves one.
          else if (i > 0 && lines >= 10_000 && !existsSync(resumeSnapshotFile(file))) throw new Error(`row 5: no resume snapshot beside ${file} after a disposed session`);
          const t0 = process.hrtime.bigint();
          readFileSync(file, "utf8");
          const readMs = msSince(t0);
          // The reply keeps usage small, so the next resume does not start with a compaction.
          kit.enqueue({ text: "ok", usage: { input: 1000, output: 5 } });
          const firstByte = relay.next();
          const startCpu = process.cpuUsage();
          const start = process.hrtime.bigint();
          const session = await world.agent.resumeSession({ sessionId });
          const run = (async () => {
            for await (const _ of session.run([userText("continue")], { approve: async () => "allow" })) {
              // drain
            }
          })();
          const byte = await firstByte;
          const ms = Number(byte.at - start) / 1e6;
          // The process's CPU time over the same span: on a loaded machine it moves far less
          // than wall time, so it shows what a change saved when the wall figure is noise.
          const cpuMs = (byte.cpu.user - startCpu.user + byte.cpu.system - startCpu.system) / 1000;
          await run;
          await session.dispose();
          // The fake model keeps every request it gets, raw and parsed (a 34 MB body at 100k
          // lines): in this process, a log a resuming process would not hold, which every later
          // run's garbage collection would walk. Dropped after each run.
          kit.requests.splice(0);
          if (i === 0) continue; // warm-up
          resume.push(ms);
          resumeCpu.push(cpuMs);
          read.push(readMs);
        }
        return { resume, resumeCpu, read };
      };
      const { resume, resumeCpu, read } = await timed(true);
      metrics.push(metric(`${lines} lines: resume → first request byte`, "ms", "lower", resume, { baseline: { name: "readFileSync", samples: read }, ...(lines === 100_000 ? { goal: "≤ 300 ms" } : {}) }));
      if (lines === 100_000) {
        metrics.push(metric(`${lines} lines: process CPU time over the same span`, "ms", "lower", resumeCpu));
        const bare = await timed(false);
        metrics.push(metric(`${lines} lines, no resume snapshot (the whole file folded): resume → first request byte`, "ms", "lower", bare.resume, { baseline: { name: "readFileSync", samples: bare.read } }));
      }
    }
  } finally {
    await relay.close();
    await kit.close();
    world.cleanup();
  }
  return { row: 5, title: "Resume from a trace to the first byte of the next request", metrics, note: notes.join(", ") };
}
