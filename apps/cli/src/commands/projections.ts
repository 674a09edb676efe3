/**
 * `penguin projections rebuild [--only NAME] [--threads 1|2] [--database URL]` and
 * `penguin projections status [--database URL]`.
 *
 * rebuild: builds the read models from every trace line into a fresh file and swaps it in
 * (progress on stderr, then a summary: projections, events, files, skipped lines, time; the
 * JSON summary also says how many threads built it). A full rebuild picks one or two threads
 * by itself (two when the machine has a core to spare and the traces are big enough to pay
 * for starting a thread); `--threads` fixes the count, for a benchmark or a busy machine.
 * It refuses while a server runs on the data root: the server keeps the file current itself,
 * and `penguin server --reindex` rebuilds through it. With `--database postgres://…` the
 * projections the servers keep in that database are rebuilt instead, into a fresh schema
 * swapped in by renames in one transaction: servers may keep running (their next statement
 * reads the new tables), so no server check; one thread.
 * status: per projection, its version, the files and events applied, skipped lines, and the
 * lag (trace bytes and files not applied yet). It does not catch up first: it reports.
 */
import { EXIT, type ExitCode } from "../exit-codes.js";
import { CliFailure, UsageError } from "../cli-error.js";
import { createJsonLines } from "../io/json-lines.js";
import { compactNumber } from "../render/format.js";
import { Output } from "../render/output.js";
import { allProjections, clusterDatabase, openProjections } from "../projections/open-projections.js";
import { runningServerPid } from "../projections/server-running.js";

export interface ProjectionsFlags {
  root?: string;
  only?: string;
  json?: boolean;
  threads?: string;
  database?: string;
}

/**
 * `--database`: a postgres:// URL, or undefined for `<root>/projections.db`. Unset, a clustered
 * root's `PENGUIN_DATABASE_URL` (the servers' default) is the target, for `rebuild` as for
 * `status` and the read commands, so the two never look at different stores.
 */
async function databaseOf(flags: ProjectionsFlags): Promise<string | undefined> {
  const given = flags.database?.trim();
  if (given === undefined || given === "") return clusterDatabase();
  const { isPostgresTarget } = await import("@penguin/projections-runner");
  if (!isPostgresTarget(given)) throw new UsageError(`--database "${given}": give a postgres:// URL such as postgres://penguin@db-host/penguin (the one the servers run with), or leave it out for <root>/projections.db`);
  return given;
}

/** `--threads`: 1 keeps the rebuild on one thread, 2 asks for the worker thread; unset lets the rebuild choose. */
function parallelOf(flags: ProjectionsFlags): boolean | undefined {
  if (flags.threads === undefined) return undefined;
  if (flags.threads !== "1" && flags.threads !== "2") throw new UsageError(`--threads "${flags.threads}": give 1 or 2 (leave it out to let the rebuild choose)`);
  if (flags.threads === "2" && flags.only !== undefined) throw new UsageError("--threads 2 applies to a full rebuild: --only rebuilds one projection on one thread; drop one of the two flags");
  return flags.threads === "2";
}

/**
 * The worker thread's script of a two-thread rebuild from the CLI's own build
 * (apps/cli/bundle/rebuild-worker.js, projections included), when this CLI runs compiled and
 * that file was built from this very build (not older than this file); else undefined and the
 * runner starts its own worker. From the TypeScript sources there is no build to match.
 */
async function bundledRebuildWorker(): Promise<URL | undefined> {
  const { statSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  const own = fileURLToPath(import.meta.url);
  if (!own.endsWith(".js")) return undefined;
  const worker = new URL("../../bundle/rebuild-worker.js", import.meta.url);
  try {
    return statSync(worker).mtimeMs >= statSync(own).mtimeMs ? worker : undefined;
  } catch {
    return undefined;
  }
}

async function rootOf(flags: ProjectionsFlags): Promise<string> {
  const { resolveRoot } = await import("@penguin/core");
  return resolveRoot(flags.root);
}

export async function projectionsRebuild(flags: ProjectionsFlags): Promise<ExitCode> {
  const root = await rootOf(flags);
  const database = await databaseOf(flags);
  const pid = database === undefined ? runningServerPid(root) : undefined;
  if (pid !== undefined) {
    throw new CliFailure(`a server is running on ${root} (pid ${pid}) and keeps projections.db current; stop it first, or restart it with \`penguin server --reindex\` to rebuild`, EXIT.usage);
  }
  const parallel = parallelOf(flags);
  const projections = await allProjections();
  if (flags.only !== undefined && !projections.some((p) => p.name === flags.only)) {
    throw new UsageError(`--only "${flags.only}": no projection named so; choose one of ${projections.map((p) => p.name).join(", ")}`);
  }
  const { mkdirSync } = await import("node:fs");
  mkdirSync(root, { recursive: true });
  const { rebuildProjections, projectionsFile } = await import("@penguin/projections-runner");
  const err = Output.of(process.stderr);
  const tty = process.stderr.isTTY === true;
  let lastShown = -1;
  const summary = await rebuildProjections({
    root,
    file: database ?? projectionsFile(root),
    projections,
    only: flags.only,
    parallel,
    workerEntry: database === undefined && flags.only === undefined && parallel !== false ? await bundledRebuildWorker() : undefined,
    onProgress: (p) => {
      const percent = p.filesTotal === 0 ? 100 : Math.floor((p.filesDone / p.filesTotal) * 100);
      if (percent === lastShown || (!tty && percent % 10 !== 0 && p.filesDone !== p.filesTotal)) return;
      lastShown = percent;
      const text = `rebuilding: ${p.filesDone}/${p.filesTotal} files, ${compactNumber(p.events)} events`;
      if (tty) process.stderr.write(`\r${text}`);
      else err.line(text);
    },
  });
  if (tty) process.stderr.write("\n");
  const seconds = (summary.durationMs / 1000).toFixed(2);
  const rate = summary.durationMs > 0 ? Math.round(summary.events / (summary.durationMs / 1000)) : summary.events;
  if (flags.json === true) {
    createJsonLines(process.stdout, () => undefined).write(summary);
  } else {
    Output.of(process.stdout).line(
      `rebuilt ${summary.projections.join(", ")}: ${summary.events} events from ${summary.files} files, ${summary.skipped} skipped lines, in ${seconds}s (${compactNumber(rate)} events/s)`,
    );
  }
  for (const key of summary.shrunk) err.line(`warning: ${key} is shorter than before (not append-only); it was read as it is now`);
  return EXIT.done;
}

export async function projectionsStatus(flags: ProjectionsFlags): Promise<ExitCode> {
  const root = await rootOf(flags);
  const store = await openProjections(root, await databaseOf(flags));
  let rows;
  try {
    rows = await store.status();
  } finally {
    await store.close();
  }
  if (flags.json === true) {
    const out = createJsonLines(process.stdout, () => undefined);
    for (const r of rows) out.write(r);
    return EXIT.done;
  }
  const out = Output.of(process.stdout);
  const header = ["PROJECTION", "VERSION", "FILES", "EVENTS", "SKIPPED", "LAG"];
  const cells = rows.map((r) => [r.name, String(r.version), String(r.files), String(r.events), String(r.skipped), r.lagFiles === 0 ? "up to date" : `${r.lagFiles} files, ${compactNumber(r.lagBytes)} bytes`]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  for (const line of [header, ...cells]) out.line(line.map((c, i) => (i === line.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  "));
  return EXIT.done;
}
