/**
 * The shapes the SessionManager is given and answers with (its dependencies, a new session's
 * input, a task request), and `ManagerParts`: what the modules split from it (task-queue.ts,
 * run-control.ts, session-settings.ts, fork-and-delete.ts, child-sessions.ts) need of the
 * manager. A type-only module, so those modules and session-manager.ts import no code from
 * each other for a type.
 */
import type { Agent, ApprovalMode, McpStdioPolicy, SandboxOptions, Session, SleepFn } from "@penguin/core";
import type { ThinkingLevel } from "@penguin/models";
import type { SessionOwnership } from "../cluster/session-ownership.js";
import type { SessionRow } from "../db/sessions-store.js";
import type { Stores } from "../db/stores.js";
import type { WorkspaceRoots } from "../services/workspace-roots.js";
import type { SessionTraceInfo } from "../services/session-trace-info.js";
import type { Ticker } from "./clock.js";
import type { SessionHub } from "./session-hub.js";
import type { EventIds } from "./sse-channel.js";
import type { AttachmentLimits, TaskInputItem } from "./task-input.js";
import type { TaskRunner } from "./task-runner.js";
import type { TraceAnnouncer } from "./trace-notices.js";
import type { UserEventHub } from "./user-events.js";

export interface SessionManagerDeps {
  root: string;
  /** A task (or compaction) of the session ended and its hub is idle: the live OpenTelemetry export listens here. */
  onTaskEnded?: (session: { projectId: string; agentId: string; sessionId: string }) => void;
  stores: Stores;
  ids: EventIds;
  userEvents: UserEventHub;
  env: NodeJS.ProcessEnv;
  sleep: SleepFn | undefined;
  fetch: typeof fetch | undefined;
  now: () => number;
  ticker: Ticker;
  idleMs: number;
  generateTitles: boolean;
  attachmentLimits: () => AttachmentLimits;
  /** Where a requested workspace may lie (services/workspace-roots.ts). */
  workspaceRoots: WorkspaceRoots;
  report(error: unknown): void;
  /**
   * Every session's boundary and whether its commands run in bwrap (an agent option, so resumes
   * and subagents too); the server always confines the file tools (`confineFiles`). Undefined: none.
   */
  sandbox: SandboxOptions | undefined;
  bwrapPath?: string;
  /** Which stdio MCP servers sessions may start (services/mcp-stdio-policy.ts); none: all. */
  mcpStdioPolicy?: McpStdioPolicy;
  /**
   * What the session's trace says now (the sessions projection, caught up first): its network
   * allowance when it is loaded, its title and thinking level when it is forked.
   */
  traceInfo(row: SessionRow): Promise<SessionTraceInfo>;
  /**
   * Who runs a session cluster-wide (cluster/cluster-node.ts, with PostgreSQL facts): claimed
   * before a session loads, released when it unloads. Undefined: the file lease alone decides.
   */
  ownership?: SessionOwnership;
  /** The sessions whose traces record follow-ups still queued (a server stopped with a queue). */
  queuedSessionIds(): Promise<string[]>;
  /** The same for every session of one agent, in one read. */
  agentTraceInfo(projectId: string, agentId: string): Promise<ReadonlyMap<string, SessionTraceInfo>>;
  /** In a cluster: where this node announces the trace lines it appends (runtime/trace-notices.ts). */
  traceAnnouncer?: TraceAnnouncer;
}

export interface CreateSessionInput {
  projectId: string;
  agentId: string;
  provider?: string | undefined;
  modelId?: string | undefined;
  workspace?: string | undefined;
  approvalMode?: ApprovalMode | undefined;
  /** `schedule` for sessions a schedule starts (recorded in the trace's session_meta). */
  source?: "schedule" | undefined;
  /**
   * Let this session's sandboxed commands use the network (the route checks that the user may
   * allow it). Recorded in the trace as `settings_changed {sandbox_network: true}`.
   */
  sandboxNetwork?: boolean | undefined;
}

export interface TaskRequest {
  input: TaskInputItem[];
  queueIfBusy: boolean;
  thinkingLevel: ThinkingLevel | undefined;
  /** Set for tasks the server posts itself (schedules). */
  sender?: "server" | undefined;
  /** Run the task as a goal with this token budget (-1 = unlimited). */
  goal?: { budget: number } | undefined;
  /** A valid W3C traceparent the request came with: recorded before the task (its spans' parent). */
  traceparent?: string | undefined;
}

export type TaskAccepted = { status: "started" } | { status: "queued"; followUpId: string };

/** What the modules split from the SessionManager need of it (session-manager.ts builds it). */
export interface ManagerParts {
  readonly deps: SessionManagerDeps;
  /** The hubs of the sessions in memory, by session id. */
  readonly hubs: Map<string, SessionHub>;
  readonly runner: TaskRunner;
  /** True once shutdown began: nothing new starts. */
  closing(): boolean;
  /** The hub with its core Session loaded (SessionManager.open). */
  open(row: SessionRow): Promise<{ hub: SessionHub; core: Session }>;
  /** The agent of a project, opened once (SessionManager.agent). */
  agent(projectId: string, agentId: string): Promise<Agent>;
  /** Disposes a hub's core Session (the lease goes with it); the hub stays. */
  unload(hub: SessionHub): Promise<void>;
}
