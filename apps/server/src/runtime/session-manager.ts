/**
 * SessionManager: the resident side of sessions. It opens sessions through core (create,
 * or `agent.resumeSession` from the trace), keeps one SessionHub per session, and enforces
 * one run per session at a time: a second task answers 409 `task_in_progress` (or
 * `compacting`), or waits in the follow-up queue when the client asks (`queueIfBusy`).
 *
 * Sessions are created persisted (`createSession({persist: true})`): the trace header is
 * written at once, so a session that never ran survives a restart and can be evicted and
 * resumed like any other.
 *
 * Also here: steering with recall (the engine's queue, under server ids), abort (which
 * denies pending approvals and hands queued follow-ups back), manual compaction, "retry
 * now", reloading sessions whose project models or agent state changed, indexing the
 * subagents a run starts (and mirroring their messages onto their own streams), idle
 * eviction (30 minutes by default, on an injected clock and ticker: an idle session's core
 * Session is disposed, and its hub dropped once nobody listens), deletion, and the graceful
 * shutdown (abort runs with their carry-over, dispose sessions so traces are closed).
 *
 * One writer per session: core's Session holds the session's lease while it is loaded here
 * (created, or resumed for a task, a compaction, a fact), and lets it go when it is unloaded
 * (idle eviction, reload, delete, shutdown). So a CLI cannot append behind the back of a
 * loaded session's in-memory fold, and a session a CLI (or another server) runs cannot be
 * loaded: opening it answers 409 `session_busy` naming the holder. Deleting such a session is
 * refused the same way.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { agentPaths, createAgent, isThinkingLevel, parseSystemConfig, describeLeaseHolder, isApprovalMode, liveLeaseHolder, moveSessionToTrash, sessionLeaseFile, isPenguinError, PROJECT_OR_AGENT_ID, sessionTraceFiles, type TrashEntry, type Agent, type AgentPaths, type ApprovalMode, type ForkPosition, type McpStdioPolicy, type SandboxOptions, type Session, type SleepFn } from "@penguin/core";
import { followupDequeued, followupQueued, isTraceable, sessionArchived, sessionTitle, settingsChanged, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { SessionRow } from "../db/sessions-store.js";
import type { Stores } from "../db/stores.js";
import { ApiError, conflict, notFound } from "../http/api-error.js";
import type { Ticker } from "./clock.js";
import type { HumanDecision } from "./approvals.js";
import { SessionHub, type FollowUp } from "./session-hub.js";
import type { EventIds } from "./sse-channel.js";
import { buildTaskMessages, type AttachmentLimits, type TaskInputItem } from "./task-input.js";
import type { WorkspaceRoots } from "../services/workspace-roots.js";
import { TaskRunner } from "./task-runner.js";
import { pendingFollowUps } from "./follow-up-queue.js";
import { JUST_CREATED, type SessionTraceInfo } from "../services/session-trace-info.js";
import { readSessionMeta } from "../services/trace-files.js";
import { sessionView } from "../services/session-view.js";
import type { UserEventHub } from "./user-events.js";

/** A web session's approval mode when neither the request nor the project names one: ask before writes and commands. */
export const WEB_SESSION_DEFAULT_APPROVAL: ApprovalMode = "read-only";

export const IDLE_EVICTION_MS = 30 * 60 * 1000;
const EVICTION_CHECK_MS = 60 * 1000;

export interface SessionManagerDeps {
  root: string;
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
  /** The sessions whose traces record follow-ups still queued (a server stopped with a queue). */
  queuedSessionIds(): Promise<string[]>;
  /** The same for every session of one agent, in one read. */
  agentTraceInfo(projectId: string, agentId: string): Promise<ReadonlyMap<string, SessionTraceInfo>>;
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
}

export type TaskAccepted = { status: "started" } | { status: "queued"; followUpId: string };

export class SessionManager {
  readonly #deps: SessionManagerDeps;
  readonly #hubs = new Map<string, SessionHub>();
  readonly #agentPaths = new Map<string, AgentPaths>();
  readonly #agents = new Map<string, Promise<Agent>>();
  readonly #runner: TaskRunner;
  readonly #lifetime = new AbortController();
  readonly #stopEviction: () => void;
  #closing = false;

  constructor(deps: SessionManagerDeps) {
    this.#deps = deps;
    this.#runner = new TaskRunner({
      stores: deps.stores,
      userEvents: deps.userEvents,
      now: deps.now,
      generateTitles: deps.generateTitles,
      lifetime: this.#lifetime.signal,
      report: deps.report,
      onIdle: (hub) => this.#onIdle(hub),
      onChildSession: (parent, meta) => this.#indexChild(parent, meta),
      mirrorChild: (m) => this.#mirrorChild(m),
      hasRecordedTitle: async (hub) => {
        const row = deps.stores.sessions.get(hub.sessionId);
        return row !== undefined && (await deps.traceInfo(row)).titleSet;
      },
    });
    this.#stopEviction = deps.ticker.every(EVICTION_CHECK_MS, () => void this.evictIdle());
  }

  /** The hub of a session if it is in memory (loaded, or followed by a subscriber). */
  peek(sessionId: string): SessionHub | undefined {
    return this.#hubs.get(sessionId);
  }

  /** What the session's trace says now (its facts, from the sessions projection caught up). */
  traceInfo(row: SessionRow): Promise<SessionTraceInfo> {
    return this.#deps.traceInfo(row);
  }

  /** The hub of a session, created (not loaded) if needed: for subscribing to its stream. */
  hub(row: SessionRow): SessionHub {
    let hub = this.#hubs.get(row.sessionId);
    if (hub === undefined) {
      // One paths object per agent, not per hub: it is ~10 KB of path strings, and a hub lives as long as its subscribers.
      const key = `${row.projectId}/${row.agentId}`;
      let paths = this.#agentPaths.get(key);
      if (paths === undefined) {
        paths = agentPaths(this.#deps.root, row.projectId, row.agentId);
        this.#agentPaths.set(key, paths);
      }
      const sessionId = row.sessionId;
      const agent = paths;
      hub = new SessionHub({ sessionId, projectId: row.projectId, agentId: row.agentId }, this.#deps.ids, this.#deps.now, () => sessionTraceFiles(agent, sessionId));
      this.#hubs.set(row.sessionId, hub);
    }
    return hub;
  }

  async create(input: CreateSessionInput): Promise<{ row: SessionRow; hub: SessionHub }> {
    const agent = await this.agent(input.projectId, input.agentId);
    const workspace = input.workspace === undefined ? undefined : this.#deps.workspaceRoots.confine(input.workspace, [agent.paths.workspacesDir]);
    const mode = input.approvalMode ?? defaultApprovalMode(agent, input.source);
    const sandboxNetwork = input.sandboxNetwork === true;
    const sandbox = this.#sessionSandbox(sandboxNetwork);
    // The starting approval mode is recorded with the session's first lines (its thinking level too).
    const core = await agent.createSession({
      workspaceDir: workspace,
      provider: input.provider,
      modelId: input.modelId,
      persist: true,
      approvalMode: mode,
      ...(input.source === undefined ? {} : { source: input.source }),
      ...(sandbox === undefined ? {} : { sandbox }),
    });
    if (sandboxNetwork) core.recordFact(settingsChanged({ sandbox_network: true }));
    const now = this.#deps.now();
    this.#deps.stores.sessions.insert({
      sessionId: core.id,
      projectId: input.projectId,
      agentId: input.agentId,
      provider: core.provider,
      modelId: core.modelId,
      workspace: core.workspace,
      createdAt: now,
    });
    // The run source (input.source) is not copied into facts.db: createSession wrote it into
    // the trace header above, which is where the session list reads it until the sessions
    // projection has folded the session.
    const row = this.#deps.stores.sessions.get(core.id);
    if (row === undefined) throw new Error(`session ${core.id} was not indexed`);
    const hub = this.hub(row);
    hub.core = core;
    return { row, hub };
  }

  /** The hub with its core Session loaded (resumed from the trace when needed). */
  async open(row: SessionRow): Promise<{ hub: SessionHub; core: Session }> {
    if (this.#closing) throw new ApiError(503, "session_unavailable", "the server is shutting down");
    const hub = this.hub(row);
    if (hub.core !== undefined) return { hub, core: hub.core };
    hub.loading ??= this.#resume(row).finally(() => {
      hub.loading = undefined;
    });
    const core = await hub.loading;
    hub.core ??= core;
    return { hub, core: hub.core };
  }

  async startTask(row: SessionRow, request: TaskRequest): Promise<TaskAccepted> {
    const { hub, core: opened } = await this.open(row);
    if (hub.busy && !request.queueIfBusy) throw busyError(hub);
    const now = this.#deps.now();
    const built = await buildTaskMessages(request.input, opened.scratchpadDir, this.#deps.attachmentLimits(), now, request.sender);
    // The session may have been unloaded (eviction, new models) while files were written:
    // open it again; from here on everything is synchronous, so the busy check holds.
    const { core } = await this.open(row);
    hub.lastActiveAt = now;
    if (hub.busy || hub.followUps.length > 0) {
      if (!request.queueIfBusy) throw busyError(hub);
      const followUp: FollowUp = { id: `fu_${randomBytes(6).toString("hex")}`, input: request.input, messages: built.messages, prompt: built.prompt, thinkingLevel: request.thinkingLevel, goal: request.goal, queuedAt: now };
      // Queued in the trace first: the queue is the trace's, and survives this server.
      core.recordFact(
        followupQueued({
          followup_id: followUp.id,
          input: request.input,
          ...(request.thinkingLevel === undefined ? {} : { thinking_level: request.thinkingLevel }),
          ...(request.goal === undefined ? {} : { goal_budget: request.goal.budget }),
        }),
      );
      hub.followUps.push(followUp);
      hub.publishTaskState();
      if (!hub.busy) this.#onIdle(hub);
      return { status: "queued", followUpId: followUp.id };
    }
    this.#runner.start(hub, core, { kind: "task", messages: built.messages, prompt: built.prompt, thinkingLevel: request.thinkingLevel, goal: request.goal });
    return { status: "started" };
  }

  /** True while a follow-up waits in the session's queue. */
  isQueued(sessionId: string, followUpId: string): boolean {
    return this.#hubs.get(sessionId)?.followUps.some((f) => f.id === followUpId) ?? false;
  }

  /** Removes a queued follow-up (recorded in the trace) and returns what the client sent. */
  async recallFollowUp(row: SessionRow, followUpId: string): Promise<TaskInputItem[]> {
    const hub = this.#hubs.get(row.sessionId);
    const at = hub?.followUps.findIndex((f) => f.id === followUpId) ?? -1;
    if (hub === undefined || at < 0) throw notFound(`follow-up ${followUpId}`);
    const [removed] = hub.followUps.splice(at, 1);
    await this.recordFact(row, followupDequeued(followUpId, "recalled"));
    hub.publishTaskState();
    return removed?.input ?? [];
  }

  /**
   * At start: the follow-ups a stopped server left queued (the traces record them) go back to
   * their sessions' queues, in order, and the first runs once its session is idle.
   */
  async restoreQueues(): Promise<number> {
    let restored = 0;
    for (const sessionId of await this.#deps.queuedSessionIds()) {
      const row = this.#deps.stores.sessions.get(sessionId);
      if (row === undefined) continue;
      try {
        const { hub, core } = await this.open(row);
        const queued = pendingFollowUps(sessionTraceFiles(agentPaths(this.#deps.root, row.projectId, row.agentId), sessionId));
        for (const q of queued) {
          if (hub.followUps.some((f) => f.id === q.followupId)) continue;
          const input = q.input as TaskInputItem[];
          const built = await buildTaskMessages(input, core.scratchpadDir, this.#deps.attachmentLimits(), this.#deps.now());
          const thinkingLevel = q.thinkingLevel !== undefined && isThinkingLevel(q.thinkingLevel) ? q.thinkingLevel : undefined;
          hub.followUps.push({ id: q.followupId, input, messages: built.messages, prompt: built.prompt, thinkingLevel, goal: q.goalBudget === undefined ? undefined : { budget: q.goalBudget }, queuedAt: this.#deps.now() });
          restored += 1;
        }
        hub.publishTaskState();
        if (!hub.busy) this.#onIdle(hub);
      } catch (error) {
        this.#deps.report(error);
      }
    }
    return restored;
  }

  steer(row: SessionRow, text: string): { id: string; text: string } {
    const hub = this.#hubs.get(row.sessionId);
    const coreId = hub?.core !== undefined && hub.state === "running" ? hub.core.queueSteering(text) : undefined;
    if (hub === undefined || coreId === undefined) throw conflict("not_running", "no task is running on this session; post a task instead");
    const id = `st_${randomBytes(6).toString("hex")}`;
    hub.steering.set(id, { id, coreId, text, status: "pending" });
    hub.publishTaskState();
    return { id, text };
  }

  /**
   * Takes back steering and returns its text: while the engine still holds it, or after the
   * run ended without delivering it. 409 `already_delivered` once the model has it.
   */
  recallSteering(row: SessionRow, id: string): { id: string; text: string } {
    const hub = this.#hubs.get(row.sessionId);
    const note = hub?.steering.get(id);
    if (hub === undefined || note === undefined) throw notFound(`steering ${id}`);
    if (note.status === "pending") {
      const text = hub.core?.recallSteering(note.coreId);
      if (text === undefined) note.status = "delivered";
    }
    if (note.status === "delivered") throw conflict("already_delivered", "this steering has already reached the agent and cannot be taken back");
    hub.steering.delete(id);
    hub.publishTaskState();
    return { id, text: note.text };
  }

  /** Aborts the running task; queued follow-ups are handed back. Undefined when idle. */
  abort(row: SessionRow): { recalled: { id: string; input: TaskInputItem[] }[] } | undefined {
    const hub = this.#hubs.get(row.sessionId);
    if (hub?.run === undefined) return undefined;
    const recalled = hub.followUps.splice(0).map((f) => ({ id: f.id, input: f.input }));
    // Handed back to the client: out of the trace's queue too.
    for (const { id } of recalled) void this.recordFact(row, followupDequeued(id, "aborted")).catch((error: unknown) => this.#deps.report(error));
    hub.run.controller.abort();
    hub.approvals.denyAll();
    hub.publishTaskState();
    return { recalled };
  }

  decide(row: SessionRow, toolCallId: string, decision: HumanDecision): void {
    const hub = this.#hubs.get(row.sessionId);
    if (hub === undefined || !hub.approvals.decide(toolCallId, decision)) throw notFound(`pending approval ${toolCallId}`);
  }

  retryNow(row: SessionRow): boolean {
    return this.#hubs.get(row.sessionId)?.core?.skipReconnectWait() ?? false;
  }

  async compact(row: SessionRow): Promise<void> {
    const { hub, core } = await this.open(row);
    if (hub.busy) throw busyError(hub);
    const why = core.compactability();
    if (why === "empty") throw conflict("nothing_to_compact", "the context is empty: there is nothing to compact");
    if (why === "just_compacted") throw conflict("already_compacted", "the context was just compacted");
    this.#runner.start(hub, core, { kind: "compact" });
  }

  /**
   * A person changed the session's approval mode: recorded in its trace at once, as
   * `settings_changed` (through its open core Session, whose fold the approvals read, or
   * appended to the file, which the next resume and the sessions projection fold).
   */
  async setApprovalMode(row: SessionRow, mode: ApprovalMode): Promise<void> {
    const core = this.#hubs.get(row.sessionId)?.core;
    if (core !== undefined) core.setApprovalMode(mode);
    else await this.recordFact(row, settingsChanged({ approval_mode: mode }));
  }

  /**
   * A person changed the session's thinking level: recorded at once as `settings_changed`
   * (the open core Session takes it for its next request). `null` goes back to the agent's
   * default, which is recorded as the level it is now, so the trace alone says what runs.
   */
  async setThinkingLevel(row: SessionRow, level: ThinkingLevel | null): Promise<void> {
    const agent = await this.agent(row.projectId, row.agentId);
    const chosen = level ?? agentDefaultThinkingLevel(agent);
    const core = this.#hubs.get(row.sessionId)?.core;
    if (core !== undefined) core.thinkingLevel = chosen;
    await this.recordFact(row, settingsChanged({ thinking_level: chosen }));
  }

  /**
   * Record a host-decided fact (title, archive) in the session's trace: through its open core
   * Session when there is one, else appended by core to the trace on disk.
   */
  async recordFact(row: SessionRow, fact: OmniMessage<"event_msg">): Promise<void> {
    const core = this.#hubs.get(row.sessionId)?.core;
    if (core !== undefined) return core.recordFact(fact);
    (await this.agent(row.projectId, row.agentId)).recordSessionFact(row.sessionId, fact);
    // Written without the session loaded: whoever follows its stream gets it from the file.
    this.#hubs.get(row.sessionId)?.channel.catchUp();
  }

  /**
   * Allows or forbids the network to a session's sandboxed commands (the route checks who may).
   * The sandbox is fixed when the core session is built, so a loaded session is rebuilt: at
   * once when idle, after its run when busy (the running task keeps the sandbox it started with).
   */
  async setSandboxNetwork(row: SessionRow, allowed: boolean): Promise<void> {
    if ((await this.#deps.traceInfo(row)).sandboxNetwork === allowed) return;
    await this.recordFact(row, settingsChanged({ sandbox_network: allowed }));
    const hub = this.#hubs.get(row.sessionId);
    if (hub === undefined || hub.core === undefined) return;
    if (hub.busy) hub.stale = true;
    else await this.#unload(hub);
  }

  /**
   * The sandbox of one session: the server's (undefined when commands run unsandboxed), with
   * the network when the server allows it to every session or this session is allowed it.
   */
  #sessionSandbox(sandboxNetwork: boolean): SandboxOptions | undefined {
    const base = this.#deps.sandbox;
    if (base === undefined) return undefined;
    return { ...base, network: base.enabled && (base.network === true || sandboxNetwork) };
  }

  /** An agent's state was replaced (snapshot import): reload its idle sessions, the others after their run. */
  reloadAgent(projectId: string, agentId: string): void {
    for (const hub of this.#hubs.values()) {
      if (hub.projectId !== projectId || hub.agentId !== agentId) continue;
      if (hub.busy) hub.stale = true;
      else void this.#unload(hub);
    }
  }

  /** The project's models changed: tell every open session, and reload their core Sessions. */
  invalidateProject(projectId: string): void {
    for (const hub of this.#hubs.values()) {
      if (hub.projectId !== projectId) continue;
      hub.serverEvent({ type: "credentials_updated", projectId });
      if (hub.busy) hub.stale = true;
      else void this.#unload(hub);
    }
  }

  /**
   * Forks an idle session after a completed task (the last one, or the answer at `position`):
   * core copies the trace and scratchpad under a new id (its settings, approval mode and
   * thinking level included, and a `forked_from` naming the source); the index gets a plain
   * web session with the copy's model and workspace, titled `<source title> (n)` where n is one
   * more than the forks the source has (counted by their `forked_from`), or than the highest
   * number a fork of it is titled with, so a title does not repeat when a fork was deleted.
   * A fork of an archived session is not archived.
   */
  async fork(row: SessionRow, position: ForkPosition | { at: number | string } | undefined): Promise<SessionRow> {
    const hub = this.#hubs.get(row.sessionId);
    if (hub?.busy) throw busyError(hub);
    const agent = await this.agent(row.projectId, row.agentId);
    // The source as its trace says before this fork: its title, archive state and forks so far.
    const source = await this.#deps.traceInfo(row);
    let forkId: string;
    try {
      forkId = await agent.forkSession({ sessionId: row.sessionId, ...(position === undefined ? {} : "at" in position ? { at: position.at } : { position }) });
    } catch (error) {
      if (isPenguinError(error) && error.code === "invalid_argument") throw conflict("cannot_fork", error.message);
      throw error;
    }
    const stores = this.#deps.stores;
    const now = this.#deps.now();
    // The copied trace's meta is the fork's truth (the index row may predate it). It is the
    // copy's first line: a fork of a 50 MB session is not decoded whole to find it.
    const first = sessionTraceFiles(agent.paths, forkId)[0];
    const meta = first === undefined ? undefined : readSessionMeta(first.file);
    if (meta === undefined) throw new Error(`fork ${forkId} has no session_meta`);
    stores.sessions.insert({
      sessionId: forkId,
      projectId: row.projectId,
      agentId: row.agentId,
      provider: meta.provider,
      modelId: meta.model_id,
      workspace: meta.workspace,
      createdAt: now,
    });
    const base = source.title ?? "Session";
    const n = Math.max(source.forkCount, await this.#highestForkNumber(row, base)) + 1;
    agent.recordSessionFact(forkId, sessionTitle(`${base} (${n})`));
    if (source.archivedAt !== null) agent.recordSessionFact(forkId, sessionArchived(false));
    const forked = stores.sessions.get(forkId);
    if (forked === undefined) throw new Error(`fork ${forkId} was not indexed`);
    return forked;
  }

  /** The highest `n` of the source's forks titled `<base> (n)` (0 when none is). */
  async #highestForkNumber(row: SessionRow, base: string): Promise<number> {
    let highest = 0;
    const prefix = `${base} (`;
    for (const info of (await this.#deps.agentTraceInfo(row.projectId, row.agentId)).values()) {
      if (info.forkedFrom?.sessionId !== row.sessionId || info.title === null || !info.title.startsWith(prefix) || !info.title.endsWith(")")) continue;
      const k = Number(info.title.slice(prefix.length, -1));
      if (Number.isInteger(k) && k > highest) highest = k;
    }
    return highest;
  }

  /**
   * Deletes a session: its traces (with their companions) and its scratchpad move to the data
   * root's trash (core's session-trash: restorable by an owner, purged by the admin), its index
   * row goes, kept in the trash entry so a restore brings its settings back.
   */
  async delete(row: SessionRow, deletedBy: string): Promise<TrashEntry> {
    const hub = this.#hubs.get(row.sessionId);
    if (hub?.busy) throw busyError(hub);
    if (hub !== undefined) {
      await this.#unload(hub);
      hub.channel.closeAll();
      this.#hubs.delete(row.sessionId);
    }
    await this.refuseIfHeldElsewhere(row, "deleting it");
    const agent = await this.agent(row.projectId, row.agentId);
    // The entry keeps the index row and, for the trash list, the title the trace gave it.
    const { title } = await this.#deps.traceInfo(row);
    const entry = moveSessionToTrash(agent.paths, row.sessionId, { deletedAt: this.#deps.now(), deletedBy, record: { ...row, title } });
    this.#deps.stores.sessions.delete(row.sessionId);
    return entry;
  }

  /**
   * 409 `session_busy` when another process (a CLI, another server) holds the session's lease:
   * asked before a change that would append to its trace, so nothing is half done. A session
   * loaded here is held by this server.
   */
  async refuseIfHeldElsewhere(row: SessionRow, doing: string): Promise<void> {
    if (this.#hubs.get(row.sessionId)?.core !== undefined) return;
    const agent = await this.agent(row.projectId, row.agentId);
    const holder = liveLeaseHolder(sessionLeaseFile(agent.paths, row.sessionId));
    if (holder !== undefined) throw conflict("session_busy", `session ${row.sessionId} is being run by another process: ${describeLeaseHolder(holder)}. Wait for it to finish (or stop it) before ${doing}; \`penguin attach ${row.sessionId}\` follows it live.`);
  }

  /** True when any session of the project (or of one agent) is running. */
  anyBusy(projectId: string, agentId?: string): boolean {
    for (const hub of this.#hubs.values()) {
      if (hub.projectId === projectId && (agentId === undefined || hub.agentId === agentId) && hub.busy) return true;
    }
    return false;
  }

  /** Forget every hub of a project or agent that is being deleted (callers check `anyBusy` first). */
  async dropAll(projectId: string, agentId?: string): Promise<void> {
    for (const hub of [...this.#hubs.values()]) {
      if (hub.projectId !== projectId || (agentId !== undefined && hub.agentId !== agentId)) continue;
      await this.#unload(hub);
      hub.channel.closeAll();
      this.#hubs.delete(hub.sessionId);
    }
    for (const key of [...this.#agents.keys()]) if (key.startsWith(`${projectId}/`) && (agentId === undefined || key === `${projectId}/${agentId}`)) this.#agents.delete(key);
  }

  /** Disposes sessions idle for longer than `idleMs`; drops hubs nobody follows. */
  async evictIdle(): Promise<number> {
    const now = this.#deps.now();
    let evicted = 0;
    for (const hub of [...this.#hubs.values()]) {
      if (hub.busy || hub.followUps.length > 0 || hub.loading !== undefined || now - hub.lastActiveAt < this.#deps.idleMs) continue;
      if (hub.core !== undefined) {
        await this.#unload(hub);
        evicted += 1;
      }
      if (hub.channel.subscriberCount === 0 && hub.core === undefined) this.#hubs.delete(hub.sessionId);
    }
    return evicted;
  }

  async agent(projectId: string, agentId: string): Promise<Agent> {
    const key = `${projectId}/${agentId}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      // The server holds the lease of every session it has loaded (one writer per session).
      const options: Parameters<typeof createAgent>[0] = { root: this.#deps.root, projectId, agentId, env: this.#deps.env, holderCommand: "penguin server" };
      if (this.#deps.sleep !== undefined) options.sleep = this.#deps.sleep;
      if (this.#deps.fetch !== undefined) options.fetch = this.#deps.fetch;
      if (this.#deps.sandbox !== undefined) options.sandbox = this.#deps.sandbox;
      if (this.#deps.bwrapPath !== undefined) options.bwrapPath = this.#deps.bwrapPath;
      if (this.#deps.mcpStdioPolicy !== undefined) options.mcpStdioPolicy = this.#deps.mcpStdioPolicy;
      agent = createAgent(options);
      agent.catch(() => this.#agents.delete(key));
      this.#agents.set(key, agent);
    }
    return agent;
  }

  get loadedCount(): number {
    let n = 0;
    for (const hub of this.#hubs.values()) if (hub.core !== undefined) n += 1;
    return n;
  }

  /** Graceful stop: abort runs (core keeps their carry-over), wait for them, dispose every session. */
  async shutdown(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#stopEviction();
    this.#lifetime.abort();
    const runs: Promise<void>[] = [];
    for (const hub of this.#hubs.values()) {
      hub.followUps.splice(0);
      if (hub.run !== undefined) {
        hub.run.controller.abort();
        hub.approvals.denyAll();
        runs.push(hub.run.done);
      }
    }
    await Promise.allSettled(runs);
    for (const hub of this.#hubs.values()) {
      await this.#unload(hub);
      hub.channel.closeAll();
    }
    this.#hubs.clear();
  }

  #onIdle(hub: SessionHub): void {
    if (hub.stale) {
      hub.stale = false;
      void this.#unload(hub).then(() => this.#startNext(hub));
      return;
    }
    this.#startNext(hub);
  }

  #startNext(hub: SessionHub): void {
    if (this.#closing || hub.busy) return;
    const next = hub.followUps.shift();
    if (next === undefined) return;
    const row = this.#deps.stores.sessions.get(hub.sessionId);
    if (row === undefined) return;
    this.open(row).then(
      ({ core }) => {
        if (hub.busy) {
          hub.followUps.unshift(next);
          return;
        }
        core.recordFact(followupDequeued(next.id, "started"));
        this.#runner.start(hub, core, { kind: "task", messages: next.messages, prompt: next.prompt, thinkingLevel: next.thinkingLevel, goal: next.goal });
      },
      (error: unknown) => {
        hub.serverEvent({ type: "task_error", message: error instanceof Error ? error.message : String(error) });
        hub.publishTaskState();
      },
    );
  }

  /**
   * A run started a subagent: index the child (its trace is in the agent named by its
   * agent_state path, in the parent's project) so its own page and stream resolve.
   */
  #indexChild(parent: SessionHub, meta: SessionMetaPayload): void {
    const { stores } = this.#deps;
    const agentId = basename(dirname(meta.agent_state));
    if (!PROJECT_OR_AGENT_ID.test(agentId) || stores.sessions.get(meta.session_id) !== undefined) return;
    const now = this.#deps.now();
    stores.sessions.upsertFromTrace({ sessionId: meta.session_id, projectId: parent.projectId, agentId, provider: meta.provider, modelId: meta.model_id, workspace: meta.workspace, createdAt: now });
    const row = stores.sessions.get(meta.session_id);
    // The child's own header (meta) says it is a subagent's run: the event names that source.
    if (row !== undefined) this.#deps.userEvents.toProject(parent.projectId, { type: "session_created", session: { ...sessionView(row, undefined, { ...JUST_CREATED, source: "subagent" }, false), parentSessionId: parent.sessionId } });
  }

  /** A child's message, as its own stream shows it: the outermost origin hop removed. */
  #mirrorChild(m: OmniMessage): void {
    const [child, ...rest] = m.origin ?? [];
    const hub = child === undefined ? undefined : this.#hubs.get(child);
    if (hub === undefined) return;
    const { origin: _origin, ...plain } = m;
    const mirrored = (rest.length === 0 ? plain : { ...plain, origin: rest }) as OmniMessage;
    // The child's records are in its own trace (its writer put them there before the parent
    // saw them): they are sent from there, with their positions; the rest is volatile.
    if (isTraceable(mirrored)) hub.channel.catchUp();
    else hub.channel.volatile(JSON.stringify(mirrored));
  }

  async #resume(row: SessionRow): Promise<Session> {
    const agent = await this.agent(row.projectId, row.agentId);
    // The network allowance is the trace's (`settings_changed`); core takes the thinking level
    // and the approval mode from the trace itself.
    const sandbox = this.#sessionSandbox((await this.#deps.traceInfo(row)).sandboxNetwork);
    return agent.resumeSession({ sessionId: row.sessionId, ...(sandbox === undefined ? {} : { sandbox }) });
  }

  async #unload(hub: SessionHub): Promise<void> {
    const core = hub.core;
    hub.core = undefined;
    if (core !== undefined) await core.dispose();
  }
}

function busyError(hub: SessionHub): ApiError {
  return hub.state === "compacting"
    ? conflict("compacting", "the session is compacting its context; try again when it is done, or queue the task")
    : conflict("task_in_progress", "a task is already running on this session; wait, steer it, abort it, or queue this one with queueIfBusy");
}

/** The thinking level the agent gives a new session (its system config, then the project's default chat). */
function agentDefaultThinkingLevel(agent: Agent): ThinkingLevel {
  let level: string | undefined;
  try {
    level = parseSystemConfig(readFileSync(agent.paths.systemConfig, "utf8"), agent.paths.systemConfig).model.thinking_level;
  } catch {
    level = undefined;
  }
  level ??= agent.projectConfig().default_chat?.thinking_level;
  return level !== undefined && isThinkingLevel(level) ? level : "medium";
}

/**
 * A new session's approval mode when the request names none: the project's
 * `default_chat.approval_mode` (an owner sets it), else `read-only` for a session a person
 * opens (read-only tools run, writes and commands ask), or `allow-all` for a schedule's run,
 * which nobody watches to answer an approval.
 */
export function defaultApprovalMode(agent: Agent, source?: "schedule"): ApprovalMode {
  const mode = agent.projectConfig().default_chat?.approval_mode;
  if (isApprovalMode(mode)) return mode;
  return source === "schedule" ? "allow-all" : WEB_SESSION_DEFAULT_APPROVAL;
}
