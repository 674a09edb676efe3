/**
 * The read models the server keeps current (sessions, usage, timeline) in
 * `<root>/projections.db`, or, when the server's facts are in PostgreSQL (`--database`), in the
 * `penguin_projections` schema of that database, and starting their live runner: it catches up
 * with every trace at start (rebuilding from scratch for `--reindex`, or when the file or schema
 * is missing), then follows appends by the server's own sessions and by the CLI or the SDK alike.
 */
import { isPostgresTarget, LiveProjectionRunner, projectionsFile, rebuildProjections, type Projection } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { timelineProjection } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";
import { agentPaths, PROJECT_OR_AGENT_ID, sessionTraceFiles } from "@penguin/core";
import type { Stores } from "../db/stores.js";

export const SERVER_PROJECTIONS: readonly Projection[] = [sessionsProjection, usageProjection, timelineProjection];

/** Where the projections live: the PostgreSQL database of the facts (`--database`), else `<root>/projections.db`. */
export function projectionsTarget(root: string, database: string | undefined): string {
  return database !== undefined && isPostgresTarget(database) ? database : projectionsFile(root);
}

export interface StartProjectionsOptions {
  reindex: boolean;
  report: (error: unknown) => void;
  pollIntervalMs?: number;
  /** The facts' target: a postgres:// URL puts the projections there too. */
  database?: string | undefined;
  /** Whether this node holds the `projections` duty (follows the traces in the background); only asked on PostgreSQL. */
  holdsDuty?: () => boolean;
}

export async function startProjections(root: string, options: StartProjectionsOptions): Promise<LiveProjectionRunner> {
  const file = projectionsTarget(root, options.database);
  if (options.reindex) await rebuildProjections({ root, file, projections: SERVER_PROJECTIONS });
  return LiveProjectionRunner.start({
    root,
    file,
    projections: SERVER_PROJECTIONS,
    onError: options.report,
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(isPostgresTarget(file) && options.holdsDuty !== undefined ? { holdsDuty: options.holdsDuty } : {}),
  });
}

/**
 * Keeps the server's session index (facts.db) aware of sessions it did not create: after
 * each pass of the runner, every session of the projection that changed since the last look
 * and is unknown to the index is added, as the start-up trace scan would add it. Sessions
 * the index knows keep their server-owned fields (title, approval mode, archive) untouched, and
 * one whose trace files are gone (deleted, in the trash) is not brought back.
 */
export function followTracedSessions(runner: LiveProjectionRunner, stores: Stores, root: string, now: () => number): void {
  // The lowest time either engine can compare (PostgreSQL's bigint takes no -Infinity).
  let watermark = Number.MIN_SAFE_INTEGER;
  runner.onCaughtUp(async (store) => {
    const changed = await store.db.selectFrom("sessions").selectAll().where("last_event_at", ">=", watermark).orderBy("last_event_at").execute();
    // The facts connection is synchronous (a round trip each on PostgreSQL): the index is asked
    // once for the pass's rows, and each project once, not once per changed row.
    const indexed = stores.sessions.known(changed.map((s) => s.session_id));
    const projectExists = new Map<string, boolean>();
    const hasProject = (projectId: string) => {
      let exists = projectExists.get(projectId);
      if (exists === undefined) projectExists.set(projectId, (exists = stores.projects.get(projectId) !== undefined));
      return exists;
    };
    for (const s of changed) {
      watermark = Math.max(watermark, Number(s.last_event_at));
      if (s.provider === null || s.model_id === null || s.workspace === null) continue;
      if (indexed.has(s.session_id) || !hasProject(s.project_id)) continue;
      // The projection keeps the rows of a session whose files went away (deleted: moved to the
      // trash); indexing it again would bring back a session with no trace.
      if (!PROJECT_OR_AGENT_ID.test(s.agent_id) || sessionTraceFiles(agentPaths(root, s.project_id, s.agent_id), s.session_id).length === 0) continue;
      if (stores.projects.agent(s.project_id, s.agent_id) === undefined) stores.projects.insertAgent(s.project_id, { agentId: s.agent_id, name: null, description: null, createdAt: now() });
      stores.sessions.upsertFromTrace({ sessionId: s.session_id, projectId: s.project_id, agentId: s.agent_id, provider: s.provider, modelId: s.model_id, workspace: s.workspace, createdAt: Number(s.created_at) });
    }
  });
}
