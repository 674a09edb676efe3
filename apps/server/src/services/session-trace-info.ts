/**
 * What the traces say about a session, for the session API: whether it has a trace, who
 * started it (its run source), when its latest event happened, the session (and event) it was
 * forked from, the recorded session it replays, the program that created it (`client`, from its
 * session_meta), and its facts: approval mode, thinking level,
 * title, archive state, network allowance, how many forks were cut from it, and its latest
 * goal. facts.db keeps none of this (it holds only what the server decides about people and
 * access): it is read from the sessions projection, one query for a whole list (forks counted
 * by their `forked_from`), and a meta read only for replays (`replay_of` is in the replay's own
 * session_meta, the first line of its first trace file; the projection does not keep it). A
 * loaded session's approval mode and thinking level are its fold's (services/session-view.ts).
 *
 * A session the projection has not folded yet (created a moment ago, or projections.db being
 * rebuilt) still has a trace: the server creates sessions persisted, so the header is on disk
 * before the creating request answers. Its run source is then read from that header, where the
 * creating code put it, rather than from any copy; it has no latest event yet, so its last
 * activity is its creation.
 */
import { SessionClientSchema, type SessionClient } from "@penguin/omnimessage";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { agentPaths, type AgentPaths } from "@penguin/core";
import type { SessionRow, SessionSource } from "../db/sessions-store.js";
import { readSessionMeta } from "./trace-files.js";
import { traceFilesOf } from "./trace-view.js";

/** The run source as the list filters on it: a replay is a person's re-run, listed with theirs. */
export type TraceSource = SessionSource | "replay" | null;

export interface SessionTraceInfo {
  /** Its trace is on disk (the projection has folded it, or its first file exists). */
  hasTrace: boolean;
  source: TraceSource;
  /** The program that created the session (session_meta `client`); null when its trace predates the field. */
  client: SessionClient | null;
  /** Event time of the session's latest trace event; null before the projection has one. */
  lastEventAt: number | null;
  forkedFrom: { sessionId: string; at: string } | null;
  replayOf: string | null;
  /** The last recorded approval mode; null when the trace records none (such a session asks for every call). */
  approvalMode: string | null;
  thinkingLevel: string | null;
  title: string | null;
  /** The title was recorded (`session_title`: a person's or the titler's), not taken from the first prompt. */
  titleSet: boolean;
  /** When the session was archived (its `session_archived` event time); null while not archived. */
  archivedAt: number | null;
  sandboxNetwork: boolean;
  /** Sessions forked from this one (their `forked_from` names it). */
  forkCount: number;
  goal: GoalView | null;
}

/** A session's latest goal as its trace records it (`goal_started`, `goal_finished`). */
export interface GoalView {
  objective: string;
  /** `active` until the goal finished, then its outcome. */
  status: string;
  /** Token budget; null = unlimited. */
  budget: number | null;
  used: number;
  rounds: number;
  createdAt: number;
  updatedAt: number;
}

/** A session without a trace: nothing is known about it from one. */
export const NO_TRACE_INFO: SessionTraceInfo = {
  hasTrace: false,
  source: null,
  client: null,
  lastEventAt: null,
  forkedFrom: null,
  replayOf: null,
  approvalMode: null,
  thinkingLevel: null,
  title: null,
  titleSet: false,
  archivedAt: null,
  sandboxNetwork: false,
  forkCount: 0,
  goal: null,
};

/**
 * A session the server created a moment ago: created persisted, so its header is on disk;
 * no event after its creation has been folded yet. A caller that created a subagent's or a
 * schedule's session adds the source it put in that header.
 */
export const JUST_CREATED: SessionTraceInfo = { ...NO_TRACE_INFO, hasTrace: true };

/** Last activity: the latest trace event, or the creation for a session with none folded yet. */
export function lastActiveAt(row: SessionRow, info: SessionTraceInfo): number {
  return Math.max(info.lastEventAt ?? row.createdAt, row.createdAt);
}

/** `<session>@NNN:LLLLLL` → its parts (the position after the last `@`). */
export function parseForkedFrom(value: string | null): SessionTraceInfo["forkedFrom"] {
  if (value === null) return null;
  const at = value.lastIndexOf("@");
  return at <= 0 ? null : { sessionId: value.slice(0, at), at: value.slice(at + 1) };
}

function sourceOf(value: string | null | undefined): TraceSource {
  return value === "subagent" || value === "schedule" || value === "replay" ? value : null;
}

const CLIENTS: readonly string[] = SessionClientSchema.literals;

function clientOf(value: string | null | undefined): SessionClient | null {
  return value !== null && value !== undefined && CLIENTS.includes(value) ? (value as SessionClient) : null;
}

const PROJECTED_COLUMNS = [
  "session_id",
  "forked_from",
  "source",
  "client",
  "last_event_at",
  "approval_mode",
  "thinking_level",
  "title",
  "title_set",
  "archived",
  "archived_at",
  "sandbox_network",
  "goal_objective",
  "goal_status",
  "goal_budget",
  "goal_tokens_used",
  "goal_rounds",
  "goal_started_at",
  "goal_updated_at",
] as const;

interface ProjectedRow {
  session_id: string;
  forked_from: string | null;
  source: string;
  client: string | null;
  last_event_at: number;
  approval_mode: string | null;
  thinking_level: string | null;
  title: string | null;
  title_set: number;
  archived: number;
  archived_at: number | null;
  sandbox_network: number;
  goal_objective: string | null;
  goal_status: string | null;
  goal_budget: number | null;
  goal_tokens_used: number | null;
  goal_rounds: number | null;
  goal_started_at: number | null;
  goal_updated_at: number | null;
}

function goalOf(r: ProjectedRow): GoalView | null {
  if (r.goal_objective === null) return null;
  const budget = r.goal_budget === null || Number(r.goal_budget) < 0 ? null : Number(r.goal_budget);
  const createdAt = Number(r.goal_started_at ?? 0);
  return { objective: r.goal_objective, status: r.goal_status ?? "active", budget, used: Number(r.goal_tokens_used ?? 0), rounds: Number(r.goal_rounds ?? 0), createdAt, updatedAt: Number(r.goal_updated_at ?? createdAt) };
}

/**
 * The title shown: a recorded one (`session_title`; empty is a cleared one), else the first
 * prompt of a run a person started; a subagent's or a schedule's run stays untitled (the list
 * names those apart).
 */
function titleOf(r: ProjectedRow): string | null {
  if (Number(r.title_set) === 1) return r.title === "" ? null : r.title;
  return r.source === "user" || r.source === "replay" ? r.title : null;
}

/** The session's facts as the projection folded them. */
function fromProjection(r: ProjectedRow, forkCount: number, replayOf: string | null): SessionTraceInfo {
  return {
    hasTrace: true,
    source: sourceOf(r.source),
    client: clientOf(r.client),
    lastEventAt: Number(r.last_event_at),
    forkedFrom: parseForkedFrom(r.forked_from),
    replayOf,
    approvalMode: r.approval_mode,
    thinkingLevel: r.thinking_level,
    title: titleOf(r),
    titleSet: Number(r.title_set) === 1,
    archivedAt: Number(r.archived) === 1 ? Number(r.archived_at ?? r.last_event_at) : null,
    sandboxNetwork: Number(r.sandbox_network) === 1,
    forkCount,
    goal: goalOf(r),
  };
}

/** What the first trace file's header says, for a session the projection has no row for. */
function fromTraceHeader(agent: AgentPaths, sessionId: string): SessionTraceInfo {
  const first = traceFilesOf(agent, sessionId)[0];
  const meta = first === undefined ? undefined : readSessionMeta(first.path);
  const source = sourceOf(meta?.source);
  return { ...NO_TRACE_INFO, hasTrace: first !== undefined, source, client: clientOf(meta?.client), replayOf: source === "replay" ? (meta?.replay_of ?? null) : null };
}

/**
 * The trace info of some sessions of one agent (all of the agent's sessions when `sessionIds`
 * is omitted: then the projection is read by agent, not by a list of ids). The projection only
 * speeds this up: when it cannot be read, the error is reported and every session's info
 * comes from its trace header instead. `withReplayOrigin` reads a replay's header for its
 * recording (the list asks for it only on the page it answers with).
 */
export async function sessionTraceInfo(
  projections: LiveProjectionRunner,
  agent: AgentPaths,
  sessionIds: readonly string[],
  report: (error: unknown) => void,
  options: { withReplayOrigin?: boolean; byAgent?: boolean } = {},
): Promise<Map<string, SessionTraceInfo>> {
  const infos = new Map<string, SessionTraceInfo>();
  if (sessionIds.length === 0) return infos;
  let rows: ProjectedRow[] = [];
  const forks = new Map<string, number>();
  try {
    rows = await projections.read((db) => {
      const q = db.selectFrom("sessions").select([...PROJECTED_COLUMNS]);
      const scoped = options.byAgent === true ? q.where("project_id", "=", agent.projectId).where("agent_id", "=", agent.agentId) : q.where("session_id", "in", [...sessionIds]);
      return scoped.execute() as Promise<ProjectedRow[]>;
    });
    // A fork names its source in `forked_from` (`<source>@<position>`); forks stay in their source's agent.
    const forkOrigins = await projections.read(
      (db) =>
        db
          .selectFrom("sessions")
          .select("forked_from")
          .where("project_id", "=", agent.projectId)
          .where("agent_id", "=", agent.agentId)
          .where("forked_from", "is not", null)
          .execute() as Promise<{ forked_from: string | null }[]>,
    );
    for (const { forked_from } of forkOrigins) {
      const origin = parseForkedFrom(forked_from);
      if (origin !== null) forks.set(origin.sessionId, (forks.get(origin.sessionId) ?? 0) + 1);
    }
  } catch (error) {
    report(error);
  }
  const projected = new Map(rows.map((r) => [r.session_id, r]));
  const withReplayOrigin = options.withReplayOrigin !== false;
  for (const id of sessionIds) {
    const r = projected.get(id);
    if (r === undefined) {
      const header = fromTraceHeader(agent, id);
      infos.set(id, withReplayOrigin ? header : { ...header, replayOf: null });
      continue;
    }
    let replayOf: string | null = null;
    if (withReplayOrigin && sourceOf(r.source) === "replay") replayOf = fromTraceHeader(agent, id).replayOf;
    infos.set(id, fromProjection(r, forks.get(id) ?? 0, replayOf));
  }
  return infos;
}

/**
 * The runtime's reader of session facts: the projection first takes in what the traces gained
 * (a fact appended a moment ago), then one session, or a whole agent, is read. A projection
 * that cannot be caught up is reported and read as it is.
 */
export function traceFactsReader(root: string, projections: LiveProjectionRunner, report: (error: unknown) => void) {
  const caughtUp = async () => {
    try {
      await projections.refresh();
    } catch (error) {
      report(error);
    }
  };
  return {
    async ofSession(row: SessionRow): Promise<SessionTraceInfo> {
      await caughtUp();
      const infos = await sessionTraceInfo(projections, agentPaths(root, row.projectId, row.agentId), [row.sessionId], report, { withReplayOrigin: false });
      return infos.get(row.sessionId) ?? NO_TRACE_INFO;
    },
    async queuedSessionIds(): Promise<string[]> {
      await caughtUp();
      const rows = await projections.read((db) => db.selectFrom("sessions").select("session_id").where("followups_pending", ">", 0).execute() as Promise<{ session_id: string }[]>);
      return rows.map((r) => r.session_id);
    },
    async ofAgent(projectId: string, agentId: string): Promise<ReadonlyMap<string, SessionTraceInfo>> {
      await caughtUp();
      const agent = agentPaths(root, projectId, agentId);
      const ids = await projections.read((db) => db.selectFrom("sessions").select("session_id").where("project_id", "=", projectId).where("agent_id", "=", agentId).execute() as Promise<{ session_id: string }[]>);
      return sessionTraceInfo(projections, agent, ids.map((r) => r.session_id), report, { withReplayOrigin: false, byAgent: true });
    },
  };
}
