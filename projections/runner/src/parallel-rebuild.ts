/**
 * A rebuild on two threads: the calling thread and one worker each build some of the data
 * root's sessions into a file of their own, and the worker's file is then joined into the
 * calling thread's (the rebuild's fresh file).
 *
 * Why by session and into separate files: one SQLite file has one writer at a time, and
 * most of a rebuild's time is spent outside SQLite (parsing JSON, the folds, encoding
 * snapshots), all of it per session. The contract (contract.ts, `source`) asks that what a
 * projection writes for a session depend on that session's events only.
 *
 * How the work is shared: the sessions, in the serial order, are cut into runs of about
 * RUN_BYTES (whole sessions: a session's later file continues its earlier one). The calling
 * thread claims runs from the front, the worker from the back, one at a time through one
 * shared atomic word, until they meet. So neither waits for the other however late the
 * worker starts (importing the projections takes it a good part of a second) or however
 * busy the machine is. The calling thread leaves the last run to the worker until the worker
 * has claimed one; a worker that never starts (or fails before its first claim) leaves it and
 * any other back to the calling thread, and once it holds a run its failure fails the
 * rebuild, as it would in one thread. Each thread's share is contiguous, and the worker's
 * (the later one) is joined after the calling thread's with `insert or replace`, by a plain
 * `insert … select` per table. A row that sessions of both shares write (a
 * subagent link is keyed by the child) ends up as the later share's, as in one thread;
 * within the worker's share the runs are built last first, so there such a row keeps the
 * earlier session's. Only a child session named by two parents could tell, and the engine
 * gives every subagent a fresh session.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { parentPort, Worker, workerData } from "node:worker_threads";
import type { Projection, ProjectionSource } from "./contract.js";
import { listTraceFiles, type TraceFile } from "./trace-folders.js";
import { ProjectionStore, type CatchUpProgress, type CatchUpResult } from "./store.js";

/** What the worker is given. */
export interface WorkerJob {
  root: string;
  /** The worker's own fresh file (made only once it claims a run). */
  file: string;
  /** Per run, the checkpoint keys of its trace files, in the serial order. */
  runs: string[][];
  projections: ProjectionSource[];
  /** The shared claim word (see `newClaims`). */
  claims: SharedArrayBuffer;
}

/** What the worker reports, in order: progress…, then done or failed. */
export type WorkerMessage =
  | { type: "progress"; progress: CatchUpProgress }
  | { type: "done"; result: CatchUpResult; claimed: number }
  | { type: "failed"; message: string };

/** Below this many bytes of traces, starting a thread costs more than it saves. */
export const PARALLEL_MIN_BYTES = 32 << 20;

/**
 * Whether a rebuild left to choose should use a second thread: only with a core to spare.
 * The second thread costs about a third more CPU in all (its start-up, its own JIT warm-up and
 * heap, the join), and it buys wall time only from a core nobody else wants: on bench row 10,
 * on this project's shared 2-core machine at a load of 9-11, two threads took 16-34 s where
 * one took 16-31 s (four interleaved pairs; CPU 13.3-14.7 s against 10.2-11.6 s). So: two
 * cores or more, and a 1-minute load average that leaves one of them idle.
 */
export function spareCoreForRebuild(cores: number, load1: number): boolean {
  return cores >= 2 && load1 <= cores - 1;
}

/** About how many bytes of traces one claim hands a thread: enough to amortize a catch-up's listing and checkpoint reads. */
const RUN_BYTES = 8 << 20;

/** The projections as a worker imports them, or undefined when one has no `source`. */
export function sourcesOf(projections: readonly Projection[]): ProjectionSource[] | undefined {
  const sources: ProjectionSource[] = [];
  for (const p of projections) {
    if (p.source === undefined) return undefined;
    sources.push(p.source);
  }
  return sources;
}

/** Cuts the files (in the serial order) into runs of whole sessions of about `runBytes` each. */
export function runsOfSessions(files: readonly TraceFile[], sizeOf: (f: TraceFile) => number, runBytes: number): TraceFile[][] {
  const runs: TraceFile[][] = [];
  let run: TraceFile[] = [];
  let bytes = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    run.push(f);
    bytes += sizeOf(f);
    const next = files[i + 1];
    const sessionEnds = next === undefined || next.projectId !== f.projectId || next.agentId !== f.agentId || next.sessionId !== f.sessionId;
    if (sessionEnds && bytes >= runBytes) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * The claim word: the next run from the front in its low 32 bits, one past the next run from
 * the back in its high 32 bits. A claim is one compare-and-swap; the two ends never hand out
 * the same run.
 */
export function newClaims(runs: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(8);
  new BigInt64Array(buffer)[0] = BigInt(runs) << 32n;
  return buffer;
}

const LOW = 0xffffffffn;

/** Claims the next run from `end`, leaving at least `keep` unclaimed; undefined when there is none to take. */
export function claimRun(claims: SharedArrayBuffer, end: "front" | "back", keep = 0): number | undefined {
  const word = new BigInt64Array(claims);
  for (;;) {
    const current = Atomics.load(word, 0);
    const front = current & LOW;
    const back = current >> 32n;
    if (front + BigInt(keep) >= back) return undefined;
    const next = end === "front" ? (back << 32n) | (front + 1n) : ((back - 1n) << 32n) | front;
    if (Atomics.compareExchange(word, 0, current, next) === current) return Number(end === "front" ? front : back - 1n);
  }
}

/**
 * Starts the worker thread, or answers undefined when it cannot be started here (the rebuild
 * then runs on the calling thread alone). `entry` is a worker script of the caller's own (it
 * must call `serveRebuildWorker`), used when it exists. Otherwise, compiled, the worker is
 * rebuild-worker.js beside this file. From the TypeScript sources (tests, the bench, a CLI
 * bundled from them) it is rebuild-worker.ts, which a worker thread cannot load by itself: it
 * does not inherit the parent's TypeScript loader, so rebuild-worker-boot.mjs registers one first.
 */
function startWorker(job: WorkerJob, entry: URL | undefined): Worker | undefined {
  try {
    if (entry !== undefined && existsSync(entry)) return new Worker(entry, { workerData: { job } });
    const own = import.meta.url;
    const ext = extname(fileURLToPath(own));
    const defaultEntry = new URL(`./rebuild-worker${ext}`, own);
    if (!existsSync(defaultEntry)) return undefined;
    if (ext !== ".ts") return new Worker(defaultEntry, { workerData: { job } });
    const boot = new URL("./rebuild-worker-boot.mjs", own);
    if (!existsSync(boot)) return undefined;
    return new Worker(boot, { workerData: { job, entry: defaultEntry.href } });
  } catch {
    return undefined;
  }
}

/**
 * The worker thread's side, for a worker entry script: gets each projection of the job from
 * `load` (by its `source`), builds the runs of sessions it claims into its own file, and
 * reports to the calling thread by message (progress, then done or failed), never by throwing
 * across. rebuild-worker.ts imports the projections; a bundled entry hands over its own.
 */
export async function serveRebuildWorker(load: (source: ProjectionSource) => Promise<Projection>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error("serveRebuildWorker runs in the worker thread of a parallel rebuild, not on its own");
  const send = (m: WorkerMessage) => port.postMessage(m);
  const job = (workerData as { job: WorkerJob }).job;
  try {
    const projections: Projection[] = [];
    for (const source of job.projections) projections.push(await load(source));
    const { result, claimed } = await buildAsWorker(job, projections, (progress) => send({ type: "progress", progress }));
    send({ type: "done", result, claimed });
  } catch (error) {
    send({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}

function removeDatabase(file: string): void {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
}

/** Copies every table of `otherFile` but the runner's version table into `store`'s file, its rows winning. */
function join(store: ProjectionStore, otherFile: string): void {
  const sqlite = store.sqlite;
  sqlite.prepare("attach database ? as other").run(otherFile);
  try {
    const tables = sqlite.prepare("select name from other.sqlite_master where type = 'table' and name <> 'projection_meta' and substr(name, 1, 7) <> 'sqlite_'").pluck().all() as string[];
    sqlite.exec("begin");
    try {
      for (const name of tables) {
        const quoted = `"${name.replaceAll('"', '""')}"`;
        sqlite.exec(`insert or replace into main.${quoted} select * from other.${quoted}`);
      }
      sqlite.exec("commit");
    } catch (error) {
      sqlite.exec("rollback");
      throw error;
    }
  } finally {
    sqlite.exec("detach database other");
  }
}

/** Whether the back end has handed out any run (the worker claims only from there). */
function backClaimed(claims: SharedArrayBuffer, runs: number): boolean {
  return Atomics.load(new BigInt64Array(claims), 0) >> 32n !== BigInt(runs);
}

/** How many runs the calling thread leaves unclaimed: the last one, until the worker has claimed a run. */
export function runsLeftToWorker(claims: SharedArrayBuffer, runs: number): number {
  return backClaimed(claims, runs) ? 0 : 1;
}

/**
 * Claims runs from `end` (leaving `keep` unclaimed, asked again before every claim) and
 * catches `store` up with each; stops when there is none to take.
 */
export async function buildClaimedRuns(store: ProjectionStore, runs: readonly (readonly string[])[], claims: SharedArrayBuffer, end: "front" | "back", onProgress: (p: CatchUpProgress) => void, keep: number | (() => number) = 0): Promise<{ result: CatchUpResult; claimed: number }> {
  const keepNow = typeof keep === "number" ? () => keep : keep;
  const result: CatchUpResult = { files: 0, events: 0, skipped: 0, shrunk: [] };
  let claimed = 0;
  for (let run = claimRun(claims, end, keepNow()); run !== undefined; run = claimRun(claims, end, keepNow())) {
    claimed += 1;
    const before = { ...result };
    const r = await store.catchUp((p) => onProgress({ filesDone: before.files + p.filesDone, filesTotal: 0, events: before.events + p.events }), new Set(runs[run]));
    result.files += r.files;
    result.events += r.events;
    result.skipped += r.skipped;
    result.shrunk.push(...r.shrunk);
  }
  return { result, claimed };
}

/**
 * Catches `store` (a fresh file being rebuilt) up with its root on two threads. Answers
 * undefined, having done nothing, when the traces are fewer than `minBytes` or make a single
 * run: the caller catches up in one thread as usual.
 */
export async function parallelCatchUp(store: ProjectionStore, sources: ProjectionSource[], minBytes: number, onProgress?: (p: CatchUpProgress) => void, workerEntry?: URL): Promise<(CatchUpResult & { threads: 1 | 2 }) | undefined> {
  const files = listTraceFiles(store.root);
  const sizes = new Map<string, number>();
  let bytes = 0;
  for (const f of files) {
    let size = 0;
    try {
      size = statSync(f.path).size;
    } catch {
      // Deleted since it was listed: nothing to read in it.
    }
    sizes.set(f.key, size);
    bytes += size;
  }
  if (bytes < minBytes) return undefined;
  const runs = runsOfSessions(files, (f) => sizes.get(f.key) ?? 0, Math.max(1, Math.min(RUN_BYTES, Math.ceil(bytes / 8)))).map((run) => run.map((f) => f.key));
  if (runs.length < 2) return undefined;
  const claims = newClaims(runs.length);
  const workerFile = `${store.file}.worker`;
  removeDatabase(workerFile);
  const progress = [
    { filesDone: 0, events: 0 },
    { filesDone: 0, events: 0 },
  ];
  const report = (thread: 0 | 1) => (p: CatchUpProgress) => {
    progress[thread] = { filesDone: p.filesDone, events: p.events };
    onProgress?.({ filesDone: progress[0]!.filesDone + progress[1]!.filesDone, filesTotal: files.length, events: progress[0]!.events + progress[1]!.events });
  };
  const job: WorkerJob = { root: store.root, file: workerFile, runs, projections: sources, claims };
  const worker = startWorker(job, workerEntry);
  if (worker === undefined) return undefined;
  type Outcome = { ok: true; result: CatchUpResult; claimed: number } | { ok: false; error: Error };
  const finished = new Promise<Outcome>((resolve) => {
    worker.on("message", (m: WorkerMessage) => {
      if (m.type === "progress") report(1)(m.progress);
      else if (m.type === "done") resolve({ ok: true, result: m.result, claimed: m.claimed });
      else if (m.type === "failed") resolve({ ok: false, error: new Error(`the rebuild's worker thread failed: ${m.message}`) });
    });
    worker.on("error", (error) => resolve({ ok: false, error }));
    worker.on("exit", (code) => resolve({ ok: false, error: new Error(`the rebuild's worker thread exited (code ${code}) before it finished`) }));
  });
  const combined = (parts: readonly CatchUpResult[]): CatchUpResult => ({
    files: parts.reduce((n, r) => n + r.files, 0),
    events: parts.reduce((n, r) => n + r.events, 0),
    skipped: parts.reduce((n, r) => n + r.skipped, 0),
    shrunk: parts.flatMap((r) => r.shrunk),
  });
  try {
    // The last run is left to the worker until it has claimed one, so a worker that started
    // always takes part (and the join is always exercised). Once it has, the calling thread
    // takes the last run too: holding it back made this thread wait for the worker's run in
    // progress and then for that whole last run.
    const own = await buildClaimedRuns(store, runs, claims, "front", report(0), () => runsLeftToWorker(claims, runs.length));
    const theirs = await finished;
    if (!theirs.ok) {
      // A worker that failed holding runs fails the rebuild; one that never claimed leaves them all here.
      if (backClaimed(claims, runs.length)) throw theirs.error;
      const rest = await buildClaimedRuns(store, runs, claims, "front", (p) => report(0)({ filesDone: own.result.files + p.filesDone, filesTotal: 0, events: own.result.events + p.events }));
      return { ...combined([own.result, rest.result]), threads: 1 };
    }
    if (theirs.claimed > 0) join(store, workerFile);
    return { ...combined([own.result, theirs.result]), threads: theirs.claimed > 0 ? 2 : 1 };
  } finally {
    await worker.terminate();
    removeDatabase(workerFile);
  }
}

/** The worker's side: claims runs from the back into its own file, made at its first claim. */
export async function buildAsWorker(job: WorkerJob, projections: readonly Projection[], onProgress: (p: CatchUpProgress) => void): Promise<{ result: CatchUpResult; claimed: number }> {
  const first = claimRun(job.claims, "back");
  if (first === undefined) return { result: { files: 0, events: 0, skipped: 0, shrunk: [] }, claimed: 0 };
  const store = await ProjectionStore.open({ file: job.file, root: job.root, projections, journal: "build" });
  try {
    // The first run is built here; the rest are claimed one by one as before.
    const head = await store.catchUp(onProgress, new Set(job.runs[first]));
    const rest = await buildClaimedRuns(store, job.runs, job.claims, "back", (p) => onProgress({ filesDone: head.files + p.filesDone, filesTotal: 0, events: head.events + p.events }));
    return {
      result: { files: head.files + rest.result.files, events: head.events + rest.result.events, skipped: head.skipped + rest.result.skipped, shrunk: [...head.shrunk, ...rest.result.shrunk] },
      claimed: 1 + rest.claimed,
    };
  } finally {
    await store.close();
  }
}
