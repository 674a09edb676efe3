/**
 * Offline rebuild: build the projections into a fresh SQLite file from every trace line, then
 * swap it in with one rename, so a reader sees the old database or the new one, never a
 * half-built one.
 *
 * The fresh file is filled without a journal on disk and without syncs (a crash leaves only
 * the temporary file, thrown away by the next rebuild), synced once, and renamed over the
 * live file. The live file's `-wal` and `-shm` are removed first: a stale write-ahead log
 * next to a different database would be replayed into it. So nothing may hold the live
 * file open during a swap: the server rebuilds through its own runner (which closes its
 * handle first), and the CLI refuses while a server runs on the data root.
 *
 * `only` rebuilds one projection: the fresh file starts as a consistent copy of the live one
 * (`VACUUM INTO`), that projection is dropped and replayed there, and the copy is swapped in.
 *
 * A `postgres://` target is rebuilt into a fresh schema swapped in by renames in one
 * transaction instead (postgres-rebuild.ts), on one thread.
 *
 * A full rebuild runs on two threads (parallel-rebuild.ts) when every projection says where
 * a worker can import it from, the machine has a core to spare (`spareCoreForRebuild`: a
 * second thread on a busy machine costs CPU and gains nothing) and the traces pass
 * PARALLEL_MIN_BYTES (a thread takes a good part of a second to start). `parallel` forces
 * it (true) or keeps the rebuild on this thread (false).
 */
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname } from "node:path";
import type { Projection } from "./contract.js";
import { isPostgresTarget } from "./dialect.js";
import { rebuildIntoPostgres } from "./postgres-rebuild.js";
import { PARALLEL_MIN_BYTES, parallelCatchUp, sourcesOf, spareCoreForRebuild } from "./parallel-rebuild.js";
import { ProjectionStore, type CatchUpProgress } from "./store.js";

export interface RebuildOptions {
  root: string;
  /** The SQLite file, or a postgres:// URL: then the build goes into a fresh schema swapped in (postgres-rebuild.ts). */
  file: string;
  /** On PostgreSQL, the live schema (default `penguin_projections`). */
  schema?: string | undefined;
  projections: readonly Projection[];
  only?: string | undefined;
  onProgress?: (p: CatchUpProgress) => void;
  /** Two threads (true) or one (false); unset: two with a core to spare and past PARALLEL_MIN_BYTES of traces. */
  parallel?: boolean | undefined;
  /**
   * The worker thread's script, when the caller has one of its own that calls
   * `serveRebuildWorker` with the projections bundled in it (the CLI's bundle: its worker then
   * starts in a tenth of the time importing the projections' modules one by one takes).
   * Unset, or not there: the runner's rebuild-worker.
   */
  workerEntry?: URL | undefined;
}

export interface RebuildSummary {
  projections: string[];
  files: number;
  events: number;
  skipped: number;
  shrunk: string[];
  durationMs: number;
  /** The threads that built the rows: 2 when the worker built a share, else 1. */
  threads: 1 | 2;
}

function removeDatabaseFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(f, { force: true });
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function rebuildProjections(options: RebuildOptions): Promise<RebuildSummary> {
  const started = performance.now();
  const { root, file, projections, only } = options;
  if (only !== undefined && !projections.some((p) => p.name === only)) {
    throw new Error(`no projection named "${only}": choose one of ${projections.map((p) => p.name).join(", ")}`);
  }
  if (isPostgresTarget(file)) {
    const result = await rebuildIntoPostgres({ root, url: file, schema: options.schema, projections, only, onProgress: options.onProgress });
    return { projections: only !== undefined ? [only] : projections.map((p) => p.name), files: result.files, events: result.events, skipped: result.skipped, shrunk: result.shrunk, durationMs: performance.now() - started, threads: 1 };
  }
  const fresh = `${file}.rebuild-${process.pid}`;
  removeDatabaseFiles(fresh);
  if (only !== undefined && existsSync(file)) {
    const live = await ProjectionStore.open({ file, root, projections });
    try {
      live.sqlite.prepare("VACUUM INTO ?").run(fresh);
    } finally {
      await live.close();
    }
  }
  const store = await ProjectionStore.open({ file: fresh, root, projections, journal: "build" });
  let result;
  try {
    if (only !== undefined) await store.reset(only);
    const sources = only === undefined ? sourcesOf(projections) : undefined;
    const twoThreads = sources !== undefined && (options.parallel ?? spareCoreForRebuild(availableParallelism(), loadavg()[0] ?? 0));
    const parallel = twoThreads ? await parallelCatchUp(store, sources, options.parallel === true ? 0 : PARALLEL_MIN_BYTES, options.onProgress, options.workerEntry) : undefined;
    result = parallel ?? { ...(await store.catchUp(options.onProgress)), threads: 1 as const };
    store.sqlite.pragma("journal_mode = DELETE");
  } catch (error) {
    await store.close();
    removeDatabaseFiles(fresh);
    throw error;
  }
  await store.close();
  fsyncPath(fresh);
  removeDatabaseFiles(file);
  renameSync(fresh, file);
  fsyncPath(dirname(file));
  return {
    projections: only !== undefined ? [only] : projections.map((p) => p.name),
    files: result.files,
    events: result.events,
    skipped: result.skipped,
    shrunk: result.shrunk,
    durationMs: performance.now() - started,
    threads: result.threads,
  };
}
