// The server under benchmark, as its own process (so its RSS is its own): startServer on the
// data root in PENGUIN_BENCH_ROOT, port 0, titles off (the bench measures the task stream,
// not the out-of-band title call), workspaces allowed under PENGUIN_BENCH_WORKSPACE_ROOT (the
// bench's temp folder), and one `READY <url>` line on stdout when it listens.
// SIGTERM stops it gracefully.
//
// PENGUIN_BENCH_SERVER_ENTRY, when set, is the start module of another tree's server (an
// older commit's, for a side-by-side run); it is imported instead of this tree's. Options an
// older server does not know (workspaceRoots) are simply not read by it.
//
// Plain JavaScript, so that the bench's `built` mode can run it with node alone: the server
// from its dist/ build, without tsx, whose loader thread, transformed sources and source maps
// (~35 MB of RSS) a deployed server does not carry. From sources, the bench adds tsx.
import { pathToFileURL } from "node:url";

const root = process.env.PENGUIN_BENCH_ROOT;
if (root === undefined || root === "") {
  process.stderr.write("PENGUIN_BENCH_ROOT is not set\n");
  process.exit(2);
}
const workspaceRoot = process.env.PENGUIN_BENCH_WORKSPACE_ROOT;
const entry = process.env.PENGUIN_BENCH_SERVER_ENTRY;
/** @type {{ startServer(options: { root: string; port: number; env: NodeJS.ProcessEnv; app: Record<string, unknown> }): Promise<{ url: string; close(): Promise<void> }> }} */
const mod = entry === undefined || entry === "" ? await import("@penguin/server") : await import(pathToFileURL(entry).href);
// PENGUIN_BENCH_DATABASE: a postgres:// URL (the cluster bench's nodes share it); else facts.db.
const database = process.env.PENGUIN_BENCH_DATABASE;
const server = await mod.startServer({ root, port: 0, env: {}, app: { generateTitles: false, ...(workspaceRoot ? { workspaceRoots: [workspaceRoot] } : {}), ...(database ? { database } : {}) } });
process.stdout.write(`READY ${server.url}\n`);
// Where the memory is at the end of the run (the bench prints it beside the peak RSS): a
// `MEMORY {…}` line, then the graceful stop.
process.once("SIGTERM", () => {
  const m = process.memoryUsage();
  process.stdout.write(`MEMORY ${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers })}\n`);
  void server.close().then(() => process.exit(0));
});
