/**
 * The worker thread of a parallel rebuild (parallel-rebuild.ts), as the runner starts it by
 * default: imports the projections from their `source` and serves the job
 * (`serveRebuildWorker`). A host that ships the projections bundled with its worker code (the
 * CLI) starts its own entry instead, which serves the job with the projections it holds.
 */
import type { Projection } from "./contract.js";
import { serveRebuildWorker } from "./parallel-rebuild.js";

await serveRebuildWorker(async (source) => {
  const exported = ((await import(source.module)) as Record<string, unknown>)[source.exportName];
  if (typeof exported !== "object" || exported === null) throw new Error(`${source.module} exports no projection named ${source.exportName}`);
  return exported as Projection;
});
