/**
 * What the traces say about a session, for the session API: whether it has a trace, who
 * started it (its run source), when its latest event happened, the session (and event) it was
 * forked from, and the recorded session it replays. facts.db keeps none of this (it holds only what the server decides):
 * it is read from the sessions projection, one query for a whole list, and a meta read only
 * for replays (`replay_of` is in the replay's own session_meta, the first line of its first
 * trace file; the projection does not keep it).
 *
 * A session the projection has not folded yet (created a moment ago, or projections.db being
 * rebuilt) still has a trace: the server creates sessions persisted, so the header is on disk
 * before the creating request answers. Its run source is then read from that header, where the
 * creating code put it, rather than from any copy; it has no latest event yet, so its last
 * activity is its creation.
 */
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import type { AgentPaths } from "@penguin/core";
import type { SessionRow, SessionSource } from "../db/sessions-store.js";
import { readSessionMeta } from "./trace-files.js";
import { traceFilesOf } from "./trace-view.js";

/** The run source as the list filters on it: a replay is a person's re-run, listed with theirs. */
export type TraceSource = SessionSource | "replay" | null;

export interface SessionTraceInfo {
  /** Its trace is on disk (the projection has folded it, or its first file exists). */
  hasTrace: boolean;
  source: TraceSource;
  /** Event time of the session's latest trace event; null before the projection has one. */
  lastEventAt: number | null;
  forkedFrom: { sessionId: string; at: string } | null;
  replayOf: string | null;
}

/** A session without a trace: nothing is known about it from one. */
export const NO_TRACE_INFO: SessionTraceInfo = { hasTrace: false, source: null, lastEventAt: null, forkedFrom: null, replayOf: null };

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

interface ProjectedRow {
  session_id: string;
  forked_from: string | null;
  source: string;
  last_event_at: number;
}

/** What the first trace file's header says, for a session the projection has no row for. */
function fromTraceHeader(agent: AgentPaths, sessionId: string): SessionTraceInfo {
  const first = traceFilesOf(agent, sessionId)[0];
  const meta = first === undefined ? undefined : readSessionMeta(first.path);
  const source = sourceOf(meta?.source);
  return { hasTrace: first !== undefined, source, lastEventAt: null, forkedFrom: null, replayOf: source === "replay" ? (meta?.replay_of ?? null) : null };
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
  try {
    rows = await projections.read((db) => {
      const q = db.selectFrom("sessions").select(["session_id", "forked_from", "source", "last_event_at"]);
      const scoped = options.byAgent === true ? q.where("project_id", "=", agent.projectId).where("agent_id", "=", agent.agentId) : q.where("session_id", "in", [...sessionIds]);
      return scoped.execute() as Promise<ProjectedRow[]>;
    });
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
    const source = sourceOf(r.source);
    let replayOf: string | null = null;
    if (withReplayOrigin && source === "replay") replayOf = fromTraceHeader(agent, id).replayOf;
    infos.set(id, { hasTrace: true, source, lastEventAt: Number(r.last_event_at), forkedFrom: parseForkedFrom(r.forked_from), replayOf });
  }
  return infos;
}
