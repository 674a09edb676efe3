// CLI wrapper of the server benchmark:
//
//   node --conditions=development --import tsx test/bench/server/run.ts [--sessions 200] [--events 200] [--delay-ms 5] [--quick]
//        [--hono DIR | --hono-commit SHA] [--built] [--node-arg FLAG]... [--snapshot-at-mb N [--snapshot-dir DIR]]
//
// Prints the figures and the goals (200 sessions, p99 ≤ 20 ms, RSS ≤ 200 MB); the goals are
// never asserted. `--hono DIR` (a checkout of an older commit, installed) or `--hono-commit SHA`
// (hono-tree.ts unpacks and installs it; default the last Hono commit) runs the same load
// against that tree's server right after this one's and prints both side by side. `--built`
// runs each server from its `dist/` build (run `npx tsc -b` in each tree first) instead of
// through tsx; `--node-arg` passes a flag to the server processes (repeatable). `--snapshot-at-mb N`
// writes a heap snapshot of the server when its RSS first reaches N MB (read it with
// heap-report.mjs); the figures of that run are not comparable (the snapshot stalls the server).
import { parseArgs } from "node:util";
import { LAST_HONO_COMMIT, prepareTree } from "./hono-tree.js";
import { runServerBench, type ServerBenchOptions, type ServerBenchResult } from "./index.js";

const { values } = parseArgs({
  options: {
    sessions: { type: "string" },
    events: { type: "string" },
    "delay-ms": { type: "string" },
    quick: { type: "boolean", default: false },
    hono: { type: "string" },
    "hono-commit": { type: "string" },
    built: { type: "boolean", default: false },
    "node-arg": { type: "string", multiple: true },
    "snapshot-at-mb": { type: "string" },
    "snapshot-dir": { type: "string" },
  },
});
const opts: ServerBenchOptions = { quick: values.quick, built: values.built, nodeArgs: values["node-arg"] ?? [] };
if (values.sessions !== undefined) opts.sessions = Number(values.sessions);
if (values.events !== undefined) opts.events = Number(values.events);
if (values["delay-ms"] !== undefined) opts.delayMs = Number(values["delay-ms"]);
if (values["snapshot-at-mb"] !== undefined) opts.snapshotAtMb = Number(values["snapshot-at-mb"]);
if (values["snapshot-dir"] !== undefined) opts.snapshotDir = values["snapshot-dir"];
if (values.hono !== undefined && values["hono-commit"] !== undefined) {
  process.stderr.write("give --hono DIR or --hono-commit SHA, not both\n");
  process.exit(2);
}
const honoDir =
  values.hono ?? (values["hono-commit"] === undefined ? undefined : prepareTree(values["hono-commit"] === "" ? LAST_HONO_COMMIT : values["hono-commit"], process.cwd(), (l) => process.stderr.write(`${l}\n`)));

const GOALS = "(goals: 200 sessions, p99 ≤ 20 ms, RSS ≤ 200 MB)";
const current = await runServerBench(opts);
if (honoDir === undefined) {
  process.stdout.write(
    [
      `server bench: ${current.sessions} concurrent sessions, ~${current.eventsPerSession} events each, ${(current.wallMs / 1000).toFixed(2)} s wall`,
      `  event latency  p50 ${current.p50.toFixed(1)} ms   p99 ${current.p99.toFixed(1)} ms   ${GOALS}`,
      `  server RSS     ${current.rssMb.toFixed(0)} MB peak   (at the end: V8 heap ${current.heapUsedMb.toFixed(0)} MB, external ${current.externalMb.toFixed(0)} MB)`,
      "",
    ].join("\n"),
  );
} else {
  const hono = await runServerBench({ ...opts, serverDir: honoDir });
  process.stdout.write(sideBySide(current, hono, honoDir));
}

function sideBySide(a: ServerBenchResult, b: ServerBenchResult, dir: string): string {
  const row = (label: string, x: string, y: string) => `  ${label.padEnd(22)}${x.padStart(14)}${y.padStart(14)}`;
  return [
    `server bench: ${a.sessions} concurrent sessions, ~${a.eventsPerSession} events each (Hono tree: ${dir}) ${GOALS}`,
    row("", "this tree", "Hono"),
    row("event latency p50", `${a.p50.toFixed(1)} ms`, `${b.p50.toFixed(1)} ms`),
    row("event latency p99", `${a.p99.toFixed(1)} ms`, `${b.p99.toFixed(1)} ms`),
    row("server peak RSS", `${a.rssMb.toFixed(0)} MB`, `${b.rssMb.toFixed(0)} MB`),
    row("V8 heap at the end", `${a.heapUsedMb.toFixed(0)} MB`, `${b.heapUsedMb.toFixed(0)} MB`),
    row("external at the end", `${a.externalMb.toFixed(0)} MB`, `${b.externalMb.toFixed(0)} MB`),
    row("events per session", String(a.eventsPerSession), String(b.eventsPerSession)),
    row("wall", `${(a.wallMs / 1000).toFixed(2)} s`, `${(b.wallMs / 1000).toFixed(2)} s`),
    "",
  ].join("\n");
}
