// Starts a parallel rebuild's worker thread from the TypeScript sources (parallel-rebuild.ts,
// `startWorker`): a worker thread does not inherit its parent's TypeScript loader, so this
// plain module registers tsx's, then loads rebuild-worker.ts. The compiled runner never uses
// it (its worker is rebuild-worker.js), which is why it is JavaScript and not compiled.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
