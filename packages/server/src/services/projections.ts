/**
 * The read models the server keeps current (sessions, usage, timeline) in
 * `<root>/projections.db`, and starting their live runner: it catches up with every trace
 * at start (rebuilding from scratch for `--reindex`, or when the file is missing), then
 * follows appends by the server's own sessions and by the CLI or the SDK alike.
 */
import { LiveProjectionRunner, projectionsFile, rebuildProjections, type Projection } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { timelineProjection } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";

export const SERVER_PROJECTIONS: readonly Projection[] = [sessionsProjection, usageProjection, timelineProjection];

export async function startProjections(root: string, options: { reindex: boolean; report: (error: unknown) => void; pollIntervalMs?: number }): Promise<LiveProjectionRunner> {
  const file = projectionsFile(root);
  if (options.reindex) await rebuildProjections({ root, file, projections: SERVER_PROJECTIONS });
  return LiveProjectionRunner.start({ root, file, projections: SERVER_PROJECTIONS, onError: options.report, ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}) });
}
