// CLI wrapper of the server benchmark:
//
//   node --conditions=development --import tsx test/bench/server/run.ts [--sessions 200] [--events 200] [--delay-ms 5] [--quick]
//
// Prints the figures and the goal (200 sessions, p99 ≤ 50 ms); the goal is never asserted.
import { parseArgs } from "node:util";
import { runServerBench, type ServerBenchOptions } from "./index.js";

const { values } = parseArgs({
  options: {
    sessions: { type: "string" },
    events: { type: "string" },
    "delay-ms": { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const opts: ServerBenchOptions = { quick: values.quick };
if (values.sessions !== undefined) opts.sessions = Number(values.sessions);
if (values.events !== undefined) opts.events = Number(values.events);
if (values["delay-ms"] !== undefined) opts.delayMs = Number(values["delay-ms"]);

const r = await runServerBench(opts);
process.stdout.write(
  [
    `server bench: ${r.sessions} concurrent sessions, ~${r.eventsPerSession} events each, ${(r.wallMs / 1000).toFixed(2)} s wall`,
    `  event latency  p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   (goal: 200 sessions, p99 ≤ 50 ms)`,
    `  server RSS     ${r.rssMb.toFixed(0)} MB peak`,
    "",
  ].join("\n"),
);
