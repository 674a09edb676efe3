/**
 * An agent's session list by category, most recently active first. The rows are the server's
 * (facts.db: which sessions the agent has); the category and the order come from the traces
 * (the run source, the archive state and the latest event, services/session-trace-info.ts),
 * which facts.db does not copy. So the agent's rows are read whole, joined in memory with the sessions
 * projection (one query by agent), filtered, ordered and cut to the page; only the page gets
 * its replay origins read.
 *
 * Categories: `active` is what a person started (a replay counts: it is their re-run of a
 * recording) and not archived; `subagent` and `schedule` are those runs, archived or not;
 * `archived` is every archived session. A session with no event folded yet counts as active
 * since its creation.
 *
 * Before reading, the live runner applies what the traces gained (as the usage reads do), so
 * a session that just ran is ordered by the event it just wrote, and the list answers the
 * same whether projections.db was kept or rebuilt from scratch.
 */
import type { AgentPaths } from "@penguin/core";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import type { SessionCategory, SessionRow } from "../db/sessions-store.js";
import type { Stores } from "../db/stores.js";
import { lastActiveAt, NO_TRACE_INFO, sessionTraceInfo, type SessionTraceInfo } from "./session-trace-info.js";

export interface ListedSession {
  row: SessionRow;
  info: SessionTraceInfo;
}

export interface SessionListDeps {
  stores: Stores;
  projections: LiveProjectionRunner;
  report: (error: unknown) => void;
}

function inCategory(category: SessionCategory, row: SessionRow, info: SessionTraceInfo): boolean {
  switch (category) {
    case "active":
      return info.archivedAt === null && (info.source === null || info.source === "replay");
    case "subagent":
      return info.source === "subagent";
    case "schedule":
      return info.source === "schedule";
    case "archived":
      return info.archivedAt !== null;
  }
}

export async function listAgentSessions(deps: SessionListDeps, agent: AgentPaths, category: SessionCategory, limit: number, offset: number): Promise<ListedSession[]> {
  const rows = deps.stores.sessions.ofAgent(agent.projectId, agent.agentId);
  try {
    await deps.projections.refresh();
  } catch (error) {
    deps.report(error);
  }
  const infos = await sessionTraceInfo(deps.projections, agent, rows.map((r) => r.sessionId), deps.report, { byAgent: true, withReplayOrigin: false });
  const listed = rows
    .map((row) => ({ row, info: infos.get(row.sessionId) ?? NO_TRACE_INFO }))
    .filter(({ row, info }) => inCategory(category, row, info))
    .sort((a, b) => lastActiveAt(b.row, b.info) - lastActiveAt(a.row, a.info) || (a.row.sessionId < b.row.sessionId ? 1 : a.row.sessionId > b.row.sessionId ? -1 : 0))
    .slice(offset, offset + limit);
  const replays = listed.filter(({ info }) => info.source === "replay").map(({ row }) => row.sessionId);
  const origins = await sessionTraceInfo(deps.projections, agent, replays, deps.report);
  return listed.map(({ row, info }) => ({ row, info: { ...info, replayOf: origins.get(row.sessionId)?.replayOf ?? null } }));
}
