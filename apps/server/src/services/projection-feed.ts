/**
 * The read models on the user feed: after every pass of the projections' live runner that
 * applied trace events, each sessions-projection row that changed goes out as `session_row`
 * and the usage totals of its project as `usage_totals`, to everyone who can see the project
 * (runtime/user-events.ts numbers them with the projection position; `added` says what the
 * totals grew by since the last announcement). Sessions run by the
 * CLI or the SDK beside the server show up the same way as the server's own.
 *
 * The position is the number of trace events the sessions projection has applied (the sum of
 * its checkpoints in projections.db): it only grows while traces are appended, and a rebuilt
 * database reaches the same number from the same traces, so it means the same thing to a
 * server after a restart. Every change announced is also written to the read-model log
 * (read-model-log.ts), so a client that comes back after a restart gets exactly the changes
 * after its position; at start-up the rows that changed while no server ran (CLI sessions) are
 * logged at the position the projections stand at. The feed also keeps the rows and totals it
 * last announced, so a client the log cannot answer is sent them in one `projection_snapshot`.
 */
import type { LiveProjectionRunner, ProjectionStore } from "@penguin/projections-runner";
import type { UserEventHub } from "../runtime/user-events.js";
import { ReadModelLog, type LoggedChange } from "./read-model-log.js";

export type ProjectionDb = ProjectionStore["db"];

/** A sessions-projection row as the feed shows it (camelCase, numbers as numbers). */
export interface SessionRowView {
  sessionId: string;
  projectId: string;
  agentId: string;
  title: string | null;
  archived: boolean;
  forkedFrom: string | null;
  provider: string | null;
  modelId: string | null;
  workspace: string | null;
  source: string;
  createdAt: number;
  lastEventAt: number;
  status: string;
  tasks: number;
  requests: number;
  toolCalls: number;
  tokens: number;
  files: number;
  parentSessionId: string | null;
}

export type UsageTotals = Record<string, unknown>;

export interface ProjectionFeedDeps {
  userEvents: UserEventHub;
  /** The data root: the read-model log lives there. */
  root: string;
  /** Who can see a project (the AccessPolicy's audience). */
  audience: (projectId: string) => string[];
  /** The project's usage totals in this store, priced as the usage route prices them (never through the runner: this runs inside its pass). */
  usageTotals: (db: ProjectionDb, projectId: string) => Promise<UsageTotals>;
  report: (error: unknown) => void;
}

async function projectionPosition(db: ProjectionDb): Promise<number> {
  const row = await db.selectFrom("projection_checkpoints").select((eb) => eb.fn.sum<number>("events").as("n")).where("projection", "=", "sessions").executeTakeFirst();
  return Number(row?.n ?? 0);
}

async function sessionRows(db: ProjectionDb): Promise<SessionRowView[]> {
  const rows = await db.selectFrom("sessions as s").leftJoin("sessions_links as l", "l.child_session_id", "s.session_id").selectAll("s").select("l.parent_session_id").execute();
  return rows.map((r: any) => ({
    sessionId: r.session_id,
    projectId: r.project_id,
    agentId: r.agent_id,
    title: r.title,
    archived: Number(r.archived) !== 0,
    forkedFrom: r.forked_from,
    provider: r.provider,
    modelId: r.model_id,
    workspace: r.workspace,
    source: r.source,
    createdAt: Number(r.created_at),
    lastEventAt: Number(r.last_event_at),
    status: r.status,
    tasks: Number(r.tasks),
    requests: Number(r.requests),
    toolCalls: Number(r.tool_calls),
    tokens: Number(r.tokens),
    files: Number(r.files),
    parentSessionId: r.parent_session_id ?? null,
  }));
}

/**
 * What a project's totals grew by since the feed last looked (numbers only; all of `next` when
 * there was no previous): a page showing a filtered range adds it to what it shows, since the
 * usage just recorded lies at "now".
 */
function difference(next: UsageTotals, previous: UsageTotals | undefined): UsageTotals {
  const out: UsageTotals = {};
  for (const [key, value] of Object.entries(next)) {
    if (typeof value !== "number") continue;
    const before = previous?.[key];
    out[key] = typeof before === "number" ? value - before : value;
  }
  return out;
}

export async function feedProjectionChanges(runner: LiveProjectionRunner, deps: ProjectionFeedDeps): Promise<void> {
  const rows = new Map<string, { row: SessionRowView; text: string }>();
  const totals = new Map<string, UsageTotals>();
  let position = -1;

  const look = async (store: ProjectionStore, announce: boolean): Promise<LoggedChange[] | undefined> => {
    const now = await projectionPosition(store.db);
    if (now === position) return undefined;
    position = now;
    const changed: SessionRowView[] = [];
    for (const row of await sessionRows(store.db)) {
      const text = JSON.stringify(row);
      if (rows.get(row.sessionId)?.text === text) continue;
      rows.set(row.sessionId, { row, text });
      changed.push(row);
    }
    const projects = new Set(changed.map((r) => r.projectId));
    const added = new Map<string, UsageTotals>();
    for (const projectId of projects) {
      const next = await deps.usageTotals(store.db, projectId);
      added.set(projectId, difference(next, totals.get(projectId)));
      totals.set(projectId, next);
    }
    deps.userEvents.advance(now);
    const events: LoggedChange[] = [
      ...changed.map((row) => ({ position: now, projectId: row.projectId, event: { type: "session_row", position: now, session: row } })),
      ...[...projects].map((projectId) => ({ position: now, projectId, event: { type: "usage_totals", position: now, projectId, totals: totals.get(projectId), added: added.get(projectId) } })),
    ];
    if (!announce) return events;
    log?.append(events);
    // One audience lookup per project for the pass, not one per changed row (emptied if access changes).
    const audienceOf = deps.userEvents.audienceMemo();
    for (const c of events) deps.userEvents.toProject(c.projectId, c.event, audienceOf);
    return events;
  };

  let log: ReadModelLog | undefined;
  const initial = await look(await runner.store(), false);
  log = new ReadModelLog(deps.root, position);
  // What changed while no server followed the traces: the rows that differ from the last ones logged.
  const logged = new Map<string, string>();
  for (const c of log.after(-1)) if (c.event.type === "session_row") logged.set(String((c.event.session as SessionRowView).sessionId), JSON.stringify(c.event.session));
  if (position > log.newest) {
    const rowsChanged = (initial ?? []).filter((c) => c.event.type !== "session_row" || logged.get((c.event.session as SessionRowView).sessionId) !== JSON.stringify(c.event.session));
    const projectsChanged = new Set(rowsChanged.filter((c) => c.event.type === "session_row").map((c) => c.projectId));
    log.append(rowsChanged.filter((c) => c.event.type === "session_row" || projectsChanged.has(c.projectId)));
  }
  deps.userEvents.setSnapshot((userId) => {
    const audienceOf = deps.userEvents.audienceMemo();
    const visible = (projectId: string) => audienceOf(projectId).includes(userId);
    return {
      type: "projection_snapshot",
      position,
      sessions: [...rows.values()].map((r) => r.row).filter((r) => visible(r.projectId)),
      usage: [...totals.entries()].filter(([projectId]) => visible(projectId)).map(([projectId, t]) => ({ projectId, totals: t })),
    };
  }, log);
  runner.onCaughtUp(async (store) => {
    try {
      await look(store, true);
    } catch (error) {
      deps.report(error);
    }
  });
}
