/**
 * How a session looks in the API: its index row plus what the runtime knows right now (run
 * state, pending approvals), and where it came from (a fork's origin, a replay's recording)
 * when the caller looked it up. One function, so lists, details and events agree.
 */
import type { SessionRow } from "../db/sessions-store.js";
import type { SessionHub } from "../runtime/session-hub.js";
import { NO_ORIGIN, type SessionOrigin } from "./session-origin.js";

export interface SessionView {
  id: string;
  projectId: string;
  agentId: string;
  provider: string | null;
  modelId: string | null;
  workspace: string | null;
  approvalMode: string;
  thinkingLevel: string | null;
  title: string | null;
  archived: boolean;
  archivedAt: number | null;
  client: "web" | "cli";
  source: "subagent" | "schedule" | null;
  hasTrace: boolean;
  /** The session's sandboxed commands may use the network (the server's `--sandbox-network` aside). */
  sandboxNetwork: boolean;
  createdAt: number;
  lastActiveAt: number;
  state: "idle" | "running" | "compacting";
  pendingApprovals: number;
  queued: number;
  /** The session and event this one was forked from (from the sessions projection). */
  forkedFrom: SessionOrigin["forkedFrom"];
  /** The recorded session this one replays. */
  replayOf: string | null;
}

export function sessionView(row: SessionRow, hub: SessionHub | undefined, origin: SessionOrigin = NO_ORIGIN): SessionView {
  return {
    id: row.sessionId,
    projectId: row.projectId,
    agentId: row.agentId,
    provider: row.provider,
    modelId: row.modelId,
    workspace: row.workspace,
    approvalMode: row.approvalMode,
    thinkingLevel: row.thinkingLevel,
    title: row.title,
    archived: row.archivedAt !== null,
    archivedAt: row.archivedAt,
    client: row.client,
    source: row.source,
    hasTrace: row.hasTrace,
    sandboxNetwork: row.sandboxNetwork,
    createdAt: row.createdAt,
    lastActiveAt: row.lastActiveAt,
    state: hub?.state ?? "idle",
    pendingApprovals: hub?.approvals.pending().length ?? 0,
    queued: hub?.followUps.length ?? 0,
    forkedFrom: origin.forkedFrom,
    replayOf: origin.replayOf,
  };
}
