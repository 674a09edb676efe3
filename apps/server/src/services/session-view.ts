/**
 * How a session looks in the API: its index row plus what the runtime knows right now (run
 * state, pending approvals). One function, so lists, details and events agree.
 */
import type { SessionRow } from "../db/sessions-store.js";
import type { SessionHub } from "../runtime/session-hub.js";

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
}

export function sessionView(row: SessionRow, hub: SessionHub | undefined): SessionView {
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
  };
}
