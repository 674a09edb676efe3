// `node --import tsx test/bench/compare.ts before.json after.json`: what changed between two bench
// reports (test/bench/results/*.json). For every figure present in both, it prints the two
// medians, the change in percent, and a verdict that knows which direction is better; a
// change within both runs' [min–max] spread is called "noise", since the spread is all the
// evidence a handful of runs gives. Prints only; exits 0 either way.
import { readFileSync } from "node:fs";
import { formatSummary, num, type BenchReport, type Metric } from "./lib/stats.js";

const [a, b] = process.argv.slice(2);
if (a === undefined || b === undefined) {
  process.stderr.write("usage: node --import tsx test/bench/compare.ts <before.json> <after.json>\n");
  process.exit(2);
}

const load = (file: string) => JSON.parse(readFileSync(file, "utf8")) as BenchReport;
const before = load(a);
const after = load(b);

function index(report: BenchReport): Map<string, Metric> {
  const out = new Map<string, Metric>();
  for (const row of report.rows) for (const m of row.metrics) out.set(`${row.row} ${m.name}`, m);
  return out;
}

function verdict(x: Metric, y: Metric): string {
  const overlap = y.value.min <= x.value.max && x.value.min <= y.value.max;
  if (overlap) return "noise";
  const higher = y.value.median > x.value.median;
  return higher === (x.better === "higher") ? "better" : "worse";
}

const was = index(before);
const now = index(after);
const lines: string[][] = [["figure", "before", "after", "change", "verdict"]];
for (const [key, y] of now) {
  const x = was.get(key);
  if (x === undefined) {
    lines.push([key, "—", formatSummary(y.value, y.unit), "", "new"]);
    continue;
  }
  const change = ((y.value.median - x.value.median) / x.value.median) * 100;
  lines.push([key, formatSummary(x.value, x.unit), formatSummary(y.value, y.unit), `${change >= 0 ? "+" : ""}${num(change)}%`, verdict(x, y)]);
}
for (const key of was.keys()) if (!now.has(key)) lines.push([key, formatSummary(was.get(key)!.value, was.get(key)!.unit), "—", "", "gone"]);
const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
process.stdout.write(`before: ${before.startedAt} (${before.node}, load ${before.loadavg.map((l) => l.toFixed(2)).join(" ")})\n`);
process.stdout.write(`after:  ${after.startedAt} (${after.node}, load ${after.loadavg.map((l) => l.toFixed(2)).join(" ")})\n\n`);
for (const l of lines) process.stdout.write(`${l.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()}\n`);
