/**
 * The worker thread of a parallel rebuild (parallel-rebuild.ts): imports the projections from
 * their `source`, builds the runs of sessions it claims into its own file, and reports to the
 * calling thread by message (progress, then done or failed), never by throwing across.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Projection } from "./contract.js";
import { buildAsWorker, type WorkerJob, type WorkerMessage } from "./parallel-rebuild.js";

const port = parentPort;
if (port === null) throw new Error("rebuild-worker runs as the worker thread of a parallel rebuild, not on its own");
const send = (m: WorkerMessage) => port.postMessage(m);
const job = (workerData as { job: WorkerJob }).job;

const projections: Projection[] = [];
for (const source of job.projections) {
  const exported = ((await import(source.module)) as Record<string, unknown>)[source.exportName];
  if (typeof exported !== "object" || exported === null) throw new Error(`${source.module} exports no projection named ${source.exportName}`);
  projections.push(exported as Projection);
}
try {
  const { result, claimed } = await buildAsWorker(job, projections, (progress) => send({ type: "progress", progress }));
  send({ type: "done", result, claimed });
} catch (error) {
  send({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
