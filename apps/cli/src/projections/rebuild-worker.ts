/**
 * The worker thread of `penguin projections rebuild` on two threads, as the CLI build bundles
 * it (apps/cli/bundle/rebuild-worker.js): the runner's worker service with the three
 * projections compiled into the same file. Started from the runner's own rebuild-worker.js
 * instead, a worker imports each projection and everything under it (effect, Kysely, the
 * protocol schemas) module by module: about 0.4 s before its first claim, against under
 * 0.1 s for this one file, time in which the calling thread rebuilt alone.
 *
 * A projection is taken from here only when the job names it by the same `source` this
 * file's copy declares (the same build); any other is imported from its source as usual.
 */
import { serveRebuildWorker, type Projection, type ProjectionSource } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { timelineProjection } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";

const BUNDLED: readonly Projection[] = [sessionsProjection, usageProjection, timelineProjection];

async function projectionFor(source: ProjectionSource): Promise<Projection> {
  const own = BUNDLED.find((p) => p.source?.module === source.module && p.source.exportName === source.exportName);
  if (own !== undefined) return own;
  const exported = ((await import(source.module)) as Record<string, unknown>)[source.exportName];
  if (typeof exported !== "object" || exported === null) throw new Error(`${source.module} exports no projection named ${source.exportName}`);
  return exported as Projection;
}

await serveRebuildWorker(projectionFor);
