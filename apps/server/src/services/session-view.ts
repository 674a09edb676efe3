/**
 * How a session looks in the API: its index row (where it is: project, agent), what its trace
 * says (run source, last activity, a fork's origin, a replay's recording, and its facts:
 * approval mode, thinking level, title, archive, network; from the sessions projection,
 * services/session-trace-info.ts) and what the runtime knows right now (run state, pending
 * approvals, and a loaded session's fold, which is where its approvals and its next request
 * read the mode and the thinking level). One function, so lists, details and events agree.
 *
 * `client` is the program its session_meta names (who created it: web, cli, sdk, acp, schedule,
 * subagent). A trace written before that was recorded gets the old guess: `web` for a session
 * the server made for a person (its creator is recorded) or a schedule, `cli` otherwise.
 */
import type { SessionClient } from "@penguin/omnimessage";
import type { SessionRow } from "../db/sessions-store.js";
import type { SessionHub } from "../runtime/session-hub.js";
import { JUST_CREATED, lastActiveAt, type SessionTraceInfo } from "./session-trace-info.js";

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
  client: SessionClient;
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
  forkedFrom: SessionTraceInfo["forkedFrom"];
  /** The recorded session this one replays. */
  replayOf: string | null;
}

/**
 * `trace` defaults to what is known of a session a person just created, without reading it
 * back (services/session-trace-info.ts, JUST_CREATED).
 */
export function sessionView(row: SessionRow, hub: SessionHub | undefined, trace: SessionTraceInfo = JUST_CREATED, createdByServer = true): SessionView {
  const core = hub?.core;
  return {
    id: row.sessionId,
    projectId: row.projectId,
    agentId: row.agentId,
    provider: row.provider,
    modelId: row.modelId,
    workspace: row.workspace,
    // A loaded session's mode is its fold's (what its approvals go by); a trace that records
    // none is run asking for every call (runtime/task-runner.ts), and shown so.
    approvalMode: core?.recordedApprovalMode ?? trace.approvalMode ?? "always-ask",
    thinkingLevel: core?.thinkingLevel ?? trace.thinkingLevel,
    title: trace.title,
    archived: trace.archivedAt !== null,
    archivedAt: trace.archivedAt,
    client: core?.meta.client ?? trace.client ?? (createdByServer || trace.source === "schedule" ? "web" : "cli"),
    source: trace.source === "replay" ? null : trace.source,
    hasTrace: trace.hasTrace,
    sandboxNetwork: trace.sandboxNetwork,
    createdAt: row.createdAt,
    lastActiveAt: lastActiveAt(row, trace),
    state: hub?.state ?? "idle",
    pendingApprovals: hub?.approvals.pending().length ?? 0,
    queued: hub?.followUps.length ?? 0,
    forkedFrom: trace.forkedFrom,
    replayOf: trace.replayOf,
  };
}
