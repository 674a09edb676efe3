// Row 9: the web dashboard's weight and paint.
// - First-load JavaScript of the chat page, gzip: builds the app (vite) and reads the figure
//   the build's own check prints (apps/web/scripts/check-bundle-size.mjs: the entry, its
//   static imports and the chat page's chunks, the envelope decoder included; lazy grammars,
//   charts and other pages not), beside the React build this app replaced. The build fails
//   above the 100 KB goal; the row lifts that limit so it prints the figure either way.
// - Delta-to-paint with 10,000 events in a session: measured by the browser suite in a real
//   Chromium (it needs the server, a scripted model and the browser), which writes
//   test-artifacts/figures/paint-latency.json. This row prints that file's figures with its
//   age, and says so when the suite has not run; it does not start a browser itself.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Metric, RowResult } from "../lib/stats.js";

const WEB = fileURLToPath(new URL("../../../apps/web/", import.meta.url));
const PAINT = fileURLToPath(new URL("../../../test-artifacts/figures/paint-latency.json", import.meta.url));
const REACT_BEFORE_KB = 164;

const one = (name: string, unit: string, value: number, goal?: string): Metric => ({
  name,
  unit,
  better: "lower",
  value: { median: value, min: value, max: value, n: 1 },
  ...(goal === undefined ? {} : { goal }),
});

export async function rowWeb(): Promise<RowResult> {
  const title = "Web dashboard: chat page first-load JS (gzip) and delta-to-paint";
  const build = spawnSync("npm", ["run", "--silent", "build"], {
    cwd: WEB,
    encoding: "utf8",
    env: { ...process.env, WEB_CHAT_JS_BUDGET_KB: "100000" },
  });
  if (build.status !== 0) return { row: 9, title, metrics: [], note: `failed: the web build exited ${build.status}: ${(build.stderr ?? "").slice(-300)}` };
  const chat = /chat page first load \(gzip\): ([\d.]+) KB = initial ([\d.]+) KB \+ chat page ([\d.]+) KB/.exec(build.stdout);
  if (chat === null) return { row: 9, title, metrics: [], note: "failed: the build printed no chat-page figure" };
  const metrics: Metric[] = [
    { ...one("chat page first load, gzip", "KB", Number(chat[1]), "≤ 100 KB"), baseline: { name: "React build before", value: { median: REACT_BEFORE_KB, min: REACT_BEFORE_KB, max: REACT_BEFORE_KB, n: 1 } }, ratio: Number(chat[1]) / REACT_BEFORE_KB },
    one("  of which the entry and its static imports", "KB", Number(chat[2])),
    one("  of which the chat page's own chunks", "KB", Number(chat[3])),
  ];
  const notes: string[] = [];
  if (existsSync(PAINT)) {
    const paint = JSON.parse(readFileSync(PAINT, "utf8")) as { deltas: number; p50Ms: number; p99Ms: number; framesShowingDeltas?: number; loadAverage1m?: number };
    const ageMin = Math.round((Date.now() - statSync(PAINT).mtimeMs) / 60_000);
    const load = paint.loadAverage1m === undefined ? "" : `, load ${paint.loadAverage1m}`;
    metrics.push(one(`delta → paint p50, ${paint.deltas} events (browser suite, ${ageMin} min ago${load})`, "ms", paint.p50Ms));
    metrics.push(one(`delta → paint p99, ${paint.deltas} events (browser suite, ${ageMin} min ago${load})`, "ms", paint.p99Ms));
    if (paint.framesShowingDeltas !== undefined) metrics.push(one(`  frames in which the answer grew (of ${paint.deltas} deltas: coalesced per frame)`, "frames", paint.framesShowingDeltas));
  } else notes.push("delta → paint: run the browser suite first (cd apps/web && npm run e2e)");
  return { row: 9, title, metrics, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
}
