/**
 * Reading the sessions projection: the list a CLI or the server shows, most recently active
 * first, with each subagent session's parent.
 */
import type { Kysely } from "kysely";
import type { SessionRow } from "./fold.js";
import type { SessionsTables } from "./projection.js";

export interface SessionListItem extends SessionRow {
  parent_session_id: string | null;
}

export interface SessionListFilter {
  projectId?: string | undefined;
  agentId?: string | undefined;
  /** Include subagent sessions (default false: they are reached through their parent). */
  includeSubagents?: boolean | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

export async function listSessions(db: Kysely<any>, filter: SessionListFilter = {}): Promise<SessionListItem[]> {
  const k = db as Kysely<SessionsTables>;
  let q = k
    .selectFrom("sessions as s")
    .leftJoin("sessions_links as l", "l.child_session_id", "s.session_id")
    .selectAll("s")
    .select("l.parent_session_id");
  if (filter.projectId !== undefined) q = q.where("s.project_id", "=", filter.projectId);
  if (filter.agentId !== undefined) q = q.where("s.agent_id", "=", filter.agentId);
  if (filter.includeSubagents !== true) q = q.where("s.source", "!=", "subagent");
  q = q.orderBy("s.last_event_at", "desc").orderBy("s.session_id", "desc");
  if (filter.limit !== undefined) q = q.limit(filter.limit).offset(filter.offset ?? 0);
  return q.execute();
}

export async function countSessions(db: Kysely<any>, filter: Omit<SessionListFilter, "limit" | "offset"> = {}): Promise<number> {
  const k = db as Kysely<SessionsTables>;
  let q = k.selectFrom("sessions").select((eb) => eb.fn.countAll<number>().as("n"));
  if (filter.projectId !== undefined) q = q.where("project_id", "=", filter.projectId);
  if (filter.agentId !== undefined) q = q.where("agent_id", "=", filter.agentId);
  if (filter.includeSubagents !== true) q = q.where("source", "!=", "subagent");
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function getSession(db: Kysely<any>, sessionId: string): Promise<SessionListItem | undefined> {
  const k = db as Kysely<SessionsTables>;
  return k
    .selectFrom("sessions as s")
    .leftJoin("sessions_links as l", "l.child_session_id", "s.session_id")
    .selectAll("s")
    .select("l.parent_session_id")
    .where("s.session_id", "=", sessionId)
    .executeTakeFirst();
}
