// Row 7: the server, measured by test/bench/server/ (written alongside, by the server's owner).
// Folded in when test/bench/server/index.ts exists and exports
// `runServerBench(opts): Promise<{ p50, p99, rssMb, sessions }>`; skipped with a note otherwise.
//
// Also, the same load on the server built (`tsc -b apps/server`, run here first; quick when up
// to date) and run with node alone, as the launcher runs it: the first pass goes through tsx,
// whose loader thread, transformed sources and source maps add ~35 MB to the server's RSS.
//
// Side by side with the Hono server from git history: set PENGUIN_BENCH_HONO to a prepared
// checkout (test/bench/server/hono-tree.ts makes one), or PENGUIN_BENCH_HONO_COMMIT to a commit
// to unpack and install (empty: the last Hono commit). The same load then runs against it right
// after this tree's server, and each metric carries it as its baseline (with the ratio).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { RowResult } from "../lib/stats.js";
import { metric } from "../lib/stats.js";

const ENTRY = fileURLToPath(new URL("../server/index.ts", import.meta.url));
const HONO_TREE = fileURLToPath(new URL("../server/hono-tree.ts", import.meta.url));
const SERVER_PROJECT = fileURLToPath(new URL("../../../apps/server", import.meta.url));

interface ServerFigures {
  p50: number;
  p99: number;
  rssMb: number;
  sessions: number;
}

type RunServerBench = (opts: { quick: boolean; serverDir?: string; built?: boolean }) => Promise<ServerFigures>;

/** Builds the server's dist/ (and what it imports) so the built pass measures today's sources. */
function buildServer(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-b", SERVER_PROJECT], { stdio: ["ignore", "ignore", "inherit"] });
}

async function honoDir(): Promise<string | undefined> {
  const dir = process.env.PENGUIN_BENCH_HONO;
  if (dir !== undefined && dir !== "") return dir;
  const commit = process.env.PENGUIN_BENCH_HONO_COMMIT;
  if (commit === undefined) return undefined;
  const tree = (await import(pathToFileURL(HONO_TREE).href)) as { prepareTree(commit?: string): string; LAST_HONO_COMMIT: string };
  return tree.prepareTree(commit === "" ? tree.LAST_HONO_COMMIT : commit);
}

export async function rowServer(quick: boolean): Promise<RowResult> {
  const title = "Server (test/bench/server)";
  if (!existsSync(ENTRY)) return { row: 7, title, metrics: [], note: "skipped: test/bench/server/index.ts does not exist yet" };
  const mod = (await import(pathToFileURL(ENTRY).href)) as { runServerBench?: RunServerBench };
  if (typeof mod.runServerBench !== "function") return { row: 7, title, metrics: [], note: "skipped: test/bench/server/index.ts has no runServerBench export" };
  const r = await mod.runServerBench({ quick });
  buildServer();
  const built = await mod.runServerBench({ quick, built: true });
  const dir = await honoDir();
  const hono = dir === undefined ? undefined : await mod.runServerBench({ quick, serverDir: dir });
  const against = (samples: number) => (hono === undefined ? {} : { baseline: { name: "Hono server (git history)", samples: [samples] } });
  return {
    row: 7,
    title: `${title}: ${r.sessions} sessions`,
    metrics: [
      metric("p50 latency, message made → subscriber", "ms", "lower", [r.p50], against(hono?.p50 ?? Number.NaN)),
      metric("p99 latency, message made → subscriber", "ms", "lower", [r.p99], { goal: "≤ 20 ms at 200 sessions", ...against(hono?.p99 ?? Number.NaN) }),
      metric("server peak RSS", "MB", "lower", [r.rssMb], { goal: "≤ 200 MB at 200 sessions", ...against(hono?.rssMb ?? Number.NaN) }),
      metric("server peak RSS, built, node alone (as the launcher runs it)", "MB", "lower", [built.rssMb], { goal: "≤ 200 MB at 200 sessions" }),
      metric("p99 latency, built, node alone", "ms", "lower", [built.p99], { goal: "≤ 20 ms at 200 sessions" }),
    ],
    note: hono === undefined ? "one run each, from sources through tsx then built with node alone: the figures are the server bench's own percentiles" : `one run each, this tree's server (sources, then built) then the Hono one (${dir}), same load`,
  };
}
