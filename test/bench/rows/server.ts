// Row 7: the server, measured by test/bench/server/ (written alongside, by the server's owner).
// Folded in when test/bench/server/index.ts exists and exports
// `runServerBench(opts): Promise<{ p50, p99, rssMb, sessions }>`; skipped with a note otherwise.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { RowResult } from "../lib/stats.js";
import { metric } from "../lib/stats.js";

const ENTRY = fileURLToPath(new URL("../server/index.ts", import.meta.url));

interface ServerFigures {
  p50: number;
  p99: number;
  rssMb: number;
  sessions: number;
}

export async function rowServer(quick: boolean): Promise<RowResult> {
  const title = "Server (test/bench/server)";
  if (!existsSync(ENTRY)) return { row: 7, title, metrics: [], note: "skipped: test/bench/server/index.ts does not exist yet" };
  const mod = (await import(pathToFileURL(ENTRY).href)) as { runServerBench?: (opts: { quick: boolean }) => Promise<ServerFigures> };
  if (typeof mod.runServerBench !== "function") return { row: 7, title, metrics: [], note: "skipped: test/bench/server/index.ts has no runServerBench export" };
  const r = await mod.runServerBench({ quick });
  return {
    row: 7,
    title: `${title}: ${r.sessions} sessions`,
    metrics: [
      metric("p50 latency, message made → subscriber", "ms", "lower", [r.p50]),
      metric("p99 latency, message made → subscriber", "ms", "lower", [r.p99], { goal: "≤ 50 ms at 200 sessions" }),
      metric("server peak RSS", "MB", "lower", [r.rssMb]),
    ],
    note: "one run: the figures are the server bench's own percentiles",
  };
}
