// Preloaded (`node --import`) into a child that bench row 10 measures, the built CLI: when the
// process exits it writes its CPU time (user + system of every thread, a finished worker
// thread's included: getrusage of the whole process) and its peak RSS as one JSON line to the
// file named by PENGUIN_BENCH_USAGE_FILE. Why a preload: Node gives a parent no resource usage
// of its children, and /usr/bin/time is not on every machine. Plain JavaScript so that the
// measured command loads no TypeScript loader; a worker thread (which inherits --import) skips it.
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.PENGUIN_BENCH_USAGE_FILE;
if (isMainThread && file !== undefined && file !== "") {
  process.on("exit", () => {
    const cpu = process.cpuUsage();
    writeFileSync(file, `${JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
  });
}
