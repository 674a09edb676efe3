// The child of row 10: one offline rebuild of every projection (what `penguin projections
// rebuild` runs) over the data root given as argv[2], into the file argv[3]. It runs alone in
// its own process so its peak RSS is the rebuild's own; it prints one JSON line with the
// events and files read, the wall and CPU time of the rebuild and the peak RSS (getrusage maxrss).
import { rebuildProjections } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { timelineProjection } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";

const [root, file] = process.argv.slice(2);
if (root === undefined || file === undefined) throw new Error("usage: rebuild-child.ts <data root> <projections file>");
const cpuBefore = process.cpuUsage();
// PENGUIN_BENCH_REBUILD_THREADS=1|2 fixes the thread count; unset, the runner decides by the load.
const threads = process.env.PENGUIN_BENCH_REBUILD_THREADS;
const parallel = threads === "2" ? true : threads === "1" ? false : undefined;
const summary = await rebuildProjections({ root, file, projections: [sessionsProjection, usageProjection, timelineProjection], ...(parallel === undefined ? {} : { parallel }) });
process.stdout.write(`${JSON.stringify({ events: summary.events, files: summary.files, skipped: summary.skipped, ms: summary.durationMs, cpuMs: ((cpu) => (cpu.user + cpu.system) / 1000)(process.cpuUsage(cpuBefore)), maxRssKiB: process.resourceUsage().maxRSS })}\n`);
