// `npm run bench`: the benchmark suite (issue "Proof: a benchmark suite…"). Runs each row,
// prints one table, and writes test/bench/results/latest.json for test/bench/compare.ts. Every figure
// is the median of several runs with [min–max]; where the table has a baseline, it was
// measured in the same run and the ratio is median / baseline median. Goals are printed,
// never asserted: a benchmark reports, the tests decide.
//
//   npm run bench                       all rows
//   npm run bench -- --rows 3,5         some rows
//   npm run bench -- --quick            fewer runs and smaller inputs, for a quick look
//   npm run bench -- --out other.json   write the report elsewhere
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { rowAdapters } from "./rows/adapters.js";
import { rowCliRun, rowColdStart } from "./rows/cli.js";
import { rowEngine } from "./rows/engine.js";
import { rowFailover } from "./rows/failover.js";
import { rowHugeRecord } from "./rows/huge-record.js";
import { rowLongSession } from "./rows/long-session.js";
import { rowLiveLag, rowRebuild, rowRebuildPostgres } from "./rows/projections.js";
import { rowDemo, rowReplay } from "./rows/replay-demo.js";
import { rowServer } from "./rows/server.js";
import { rowTimeTravel } from "./rows/time-travel.js";
import { rowTurnCache } from "./rows/turn-cache.js";
import { rowTui } from "./rows/tui.js";
import { rowWeb } from "./rows/web.js";
import { rowCheckpoints } from "./rows/checkpoints.js";
import { rowClusterStreams } from "./rows/cluster-streams.js";
import { rowAppend, rowResume } from "./rows/trace.js";
import { rowToolTurn } from "./rows/tool-turn.js";
import { formatSummary, num, type BenchReport, type RowResult } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string" },
    quick: { type: "boolean", default: false },
    out: { type: "string", default: fileURLToPath(new URL("results/latest.json", import.meta.url)) },
  },
});
const quick = values.quick === true;
const wanted = values.rows === undefined ? undefined : new Set(values.rows.split(",").map(Number));

const ROWS: { row: number; run: () => Promise<RowResult> }[] = [
  { row: 1, run: () => rowColdStart(quick ? 5 : 15) },
  { row: 2, run: () => rowCliRun(quick ? 3 : 7) },
  { row: 3, run: () => rowEngine(quick ? 1 : 3, quick ? 300 : 1000) },
  { row: 4, run: () => rowAppend(quick ? 3 : 7) },
  { row: 5, run: () => rowResume((lines) => (quick ? 2 : lines >= 100_000 ? 3 : 5), quick ? [1000, 10_000] : [1000, 10_000, 100_000]) },
  { row: 6, run: () => rowAdapters(quick ? 3 : 5) },
  { row: 7, run: () => rowServer(quick) },
  { row: 8, run: () => rowTimeTravel(quick ? 20 : 100, quick ? 20_000 : 100_000) },
  { row: 9, run: () => rowWeb() },
  { row: 10, run: () => rowRebuild(quick ? 1 : 3, quick ? 100_000 : 1_000_000) },
  { row: 11, run: () => rowLiveLag(quick ? 50 : 200) },
  { row: 12, run: () => rowReplay(quick ? 1 : 3, quick ? 300 : 1000) },
  { row: 13, run: () => rowDemo(quick ? 2 : 5) },
  { row: 14, run: () => rowLongSession(quick ? 2 : 5) },
  { row: 15, run: () => rowHugeRecord(quick ? 2 : 5) },
  { row: 16, run: () => rowTurnCache(quick ? 3 : 7, quick ? [1000, 10_000] : [1000, 10_000, 50_000, 100_000]) },
  { row: 17, run: () => rowTui(quick ? 3 : 7, quick ? 2_000 : 10_000) },
  { row: 18, run: () => rowCheckpoints(quick ? 30 : 200, quick ? 2000 : 10_000) },
  { row: 19, run: () => rowRebuildPostgres(quick ? 1 : 3, quick ? 50_000 : 200_000) },
  { row: 20, run: () => rowClusterStreams(quick) },
  { row: 21, run: () => rowFailover(quick ? 1 : 3) },
  { row: 22, run: () => rowToolTurn(quick ? 10 : 30) },
];

function printTable(rows: RowResult[]): void {
  const lines: string[][] = [["#", "figure", "median [min–max]", "baseline (same run)", "ratio", "goal"]];
  for (const r of rows) {
    lines.push([String(r.row), r.title, "", "", "", ""]);
    if (r.metrics.length === 0) lines.push(["", `  ${r.note ?? "n/a"}`, "", "", "", ""]);
    for (const m of r.metrics) {
      lines.push([
        "",
        `  ${m.name}`,
        formatSummary(m.value, m.unit),
        m.baseline === undefined ? "" : `${m.baseline.name}: ${formatSummary(m.baseline.value, m.unit)}`,
        m.ratio === undefined ? "" : `${num(m.ratio)}×`,
        m.goal ?? "",
      ]);
    }
    if (r.metrics.length > 0 && r.note !== undefined) lines.push(["", `  (${r.note})`, "", "", "", ""]);
  }
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => (l[c]!.length > 70 ? 0 : l[c]!.length))));
  for (const l of lines) process.stdout.write(`${l.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()}\n`);
}

const report: BenchReport = { startedAt: new Date().toISOString(), node: process.version, platform: platform(), cpus: cpus().length, loadavg: loadavg(), rows: [] };
for (const { row, run } of ROWS) {
  if (wanted !== undefined && !wanted.has(row)) continue;
  process.stderr.write(`bench: row ${row}…\n`);
  try {
    report.rows.push(await run());
  } catch (error) {
    report.rows.push({ row, title: `row ${row}`, metrics: [], note: `failed: ${error instanceof Error ? error.message : String(error)}` });
  }
}
process.stdout.write(`\nPenguinHarness bench — node ${report.node}, ${report.cpus} CPUs, load ${report.loadavg.map((l) => l.toFixed(2)).join(" ")} at start\n\n`);
printTable(report.rows);
mkdirSync(dirname(values.out!), { recursive: true });
writeFileSync(values.out!, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`\nwrote ${values.out}\n`);
