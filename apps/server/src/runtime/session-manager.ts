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
 * One writer per session: core's Session holds the session's lease while it is loaded here
 * (created, or resumed for a task, a compaction, a fact), and lets it go when it is unloaded
 * (idle eviction, reload, delete, shutdown). So a CLI cannot append behind the back of a
 * loaded session's in-memory fold, and a session a CLI (or another server) runs cannot be
 * loaded: opening it answers 409 `session_busy` naming the holder. Deleting such a session is
 * refused the same way.
 *
 * This file keeps the registry of hubs and agents, creating, opening and unloading
 * sessions, and the shutdown; the other concerns are modules named for their job, over
 * `ManagerParts` (session-manager-parts.ts): task-queue.ts (tasks, follow-ups, compaction),
 * run-control.ts (steering, abort, approvals, retry), session-settings.ts (settings as trace
 * facts, a new session's defaults), session-unloading.ts (idle eviction, reloads),
 * fork-and-delete.ts, child-sessions.ts (subagents).
 */
import type { Agent, AgentPaths, ApprovalMode, ForkPosition, RewindResult, Session, TrashEntry } from "@penguin/core";
import { agentPaths, createAgent, sessionTraceFiles } from "@penguin/core";
import { settingsChanged, type OmniMessage } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { SessionRow } from "../db/sessions-store.js";
import { ApiError } from "../http/api-error.js";
import type { SessionTraceInfo } from "../services/session-trace-info.js";
import type { HumanDecision } from "./approvals.js";
import { indexChild, mirrorChild } from "./child-sessions.js";
import { ClusterSessions } from "./cluster-sessions.js";
import { deleteSession, forkSession, refuseIfHeldElsewhere } from "./fork-and-delete.js";
import { abort, busyError, decide, recallSteering, retryNow, steer } from "./run-control.js";
import { SessionHub } from "./session-hub.js";
import type { CreateSessionInput, ManagerParts, SessionManagerDeps, TaskAccepted, TaskRequest } from "./session-manager-parts.js";
import { defaultApprovalMode, recordFact, sessionSandbox, setApprovalMode, setSandboxNetwork, setThinkingLevel } from "./session-settings.js";
import { evictIdle, invalidateProject, reloadAgent } from "./session-unloading.js";
import { announceFrom, followAll, followNotices, streamHub } from "./followed-streams.js";
import type { TraceNoticeReceiver } from "./trace-notices.js";
import type { TaskInputItem } from "./task-input.js";
import { compact, isQueued, onIdle, recallFollowUp, restoreQueues, startTask } from "./task-queue.js";
import { TaskRunner } from "./task-runner.js";

export type { CreateSessionInput, SessionManagerDeps, TaskAccepted, TaskRequest } from "./session-manager-parts.js";
export { defaultApprovalMode, WEB_SESSION_DEFAULT_APPROVAL } from "./session-settings.js";

export const IDLE_EVICTION_MS = 30 * 60 * 1000;
const EVICTION_CHECK_MS = 60 * 1000;

export class SessionManager {
  readonly #deps: SessionManagerDeps;
  readonly #hubs = new Map<string, SessionHub>();
  readonly #agentPaths = new Map<string, AgentPaths>();
  readonly #agents = new Map<string, Promise<Agent>>();
  readonly #runner: TaskRunner;
  readonly #lifetime = new AbortController();
  readonly #stopEviction: () => void;
  /** What the modules split from this class need of it (session-manager-parts.ts). */
  readonly #parts: ManagerParts;
  #closing = false;
  /** Who runs a session cluster-wide (runtime/cluster-sessions.ts; does nothing on SQLite). */
  readonly #cluster: ClusterSessions;

  constructor(deps: SessionManagerDeps) {
    this.#deps = deps;
    this.#runner = new TaskRunner({
      stores: deps.stores,
      userEvents: deps.userEvents,
      now: deps.now,
      generateTitles: deps.generateTitles,
      lifetime: this.#lifetime.signal,
      report: deps.report,
      onIdle: (hub) => {
        deps.onTaskEnded?.({ projectId: hub.projectId, agentId: hub.agentId, sessionId: hub.sessionId });
        onIdle(this.#parts, hub);
        this.#cluster.markActivity(hub);
      },
      onChildSession: (parent, meta) => indexChild(this.#parts, parent, meta),
      mirrorChild: (m) => mirrorChild(this.#parts, m),
      hasRecordedTitle: async (hub) => {
        const row = deps.stores.sessions.get(hub.sessionId);
        return row !== undefined && (await deps.traceInfo(row)).titleSet;
      },
    });
    this.#parts = {
      deps,
      hubs: this.#hubs,
      runner: this.#runner,
      closing: () => this.#closing,
      open: (row) => this.open(row),
      agent: (projectId, agentId) => this.agent(projectId, agentId),
      unload: (hub) => this.#unload(hub),
    };
    this.#stopEviction = deps.ticker.every(EVICTION_CHECK_MS, () => void this.evictIdle());
    this.#cluster = new ClusterSessions(this.#parts);
    deps.ownership?.bind({ onLost: (sessionId) => void this.#cluster.lost(sessionId), pickUp: (sessionId) => this.#cluster.pickUp(sessionId) });
  }

  /** Who runs sessions cluster-wide (PostgreSQL facts), if this server is a node of a cluster. */
  get ownership(): SessionManagerDeps["ownership"] {
    return this.#deps.ownership;
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
      announceFrom(this.#parts, hub);
      this.#hubs.set(row.sessionId, hub);
    }
    return hub;
  }

  /** The hub a stream subscribes to: in a cluster, brought up to its trace's end first (followed-streams.ts). */
  streamHub(row: SessionRow): SessionHub {
    return streamHub(this.#parts, this.hub(row));
  }

  /** What this node does with the trace notices of the other nodes of its cluster. */
  traceNoticeReceiver(): TraceNoticeReceiver {
    return { notices: (batch) => followNotices(this.#parts, batch), listening: () => followAll(this.#parts) };
  }

  async create(input: CreateSessionInput): Promise<{ row: SessionRow; hub: SessionHub }> {
    const agent = await this.agent(input.projectId, input.agentId);
    const workspace = input.workspace === undefined ? undefined : this.#deps.workspaceRoots.confine(input.workspace, [agent.paths.workspacesDir]);
    const mode = input.approvalMode ?? defaultApprovalMode(agent, input.source);
    const sandboxNetwork = input.sandboxNetwork === true;
    const sandbox = sessionSandbox(this.#deps.sandbox, sandboxNetwork);
    // The starting approval mode is recorded with the session's first lines (its thinking level too).
    const core = await agent.createSession({
      workspaceDir: workspace,
      provider: input.provider,
      modelId: input.modelId,
      persist: true,
      approvalMode: mode,
      client: input.source ?? "web", // a person's session comes through the web's API; a schedule's is its own
      ...(input.source === undefined ? {} : { source: input.source }),
      ...(sandbox === undefined ? {} : { sandbox }),
    });
    try {
      this.#cluster.claim(agent.paths, core.id);
    } catch (error) {
      await core.dispose();
      throw error;
    }
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
    // The session was a dead node's with work left: its queued follow-ups run here.
    this.#cluster.loaded(row);
    return { hub, core: hub.core };
  }

  async startTask(row: SessionRow, request: TaskRequest): Promise<TaskAccepted> {
    const accepted = await startTask(this.#parts, row, request);
    const hub = this.#hubs.get(row.sessionId);
    if (hub !== undefined) this.#cluster.markActivity(hub);
    return accepted;
  }

  /** True while a follow-up waits in the session's queue. */
  isQueued(sessionId: string, followUpId: string): boolean {
    return isQueued(this.#parts, sessionId, followUpId);
  }

  /** Removes a queued follow-up (recorded in the trace) and returns what the client sent. */
  async recallFollowUp(row: SessionRow, followUpId: string): Promise<TaskInputItem[]> {
    return recallFollowUp(this.#parts, row, followUpId);
  }

  /**
   * At start: the follow-ups a stopped server left queued (the traces record them) go back to
   * their sessions' queues, in order, and the first runs once its session is idle.
   */
  async restoreQueues(): Promise<number> {
    return restoreQueues(this.#parts, (row) => this.#cluster.restoreOnce(row));
  }

  steer(row: SessionRow, text: string): { id: string; text: string } {
    return steer(this.#parts, row, text);
  }

  /**
   * Takes back steering and returns its text: while the engine still holds it, or after the
   * run ended without delivering it. 409 `already_delivered` once the model has it.
   */
  recallSteering(row: SessionRow, id: string): { id: string; text: string } {
    return recallSteering(this.#parts, row, id);
  }

  /** Aborts the running task; queued follow-ups are handed back. Undefined when idle. */
  abort(row: SessionRow): { recalled: { id: string; input: TaskInputItem[] }[] } | undefined {
    return abort(this.#parts, row);
  }

  decide(row: SessionRow, toolCallId: string, decision: HumanDecision): void {
    decide(this.#parts, row, toolCallId, decision);
  }

  retryNow(row: SessionRow): boolean {
    return retryNow(this.#parts, row);
  }

  async compact(row: SessionRow): Promise<void> {
    return compact(this.#parts, row);
  }

  /**
   * A person changed the session's approval mode: recorded in its trace at once, as
   * `settings_changed` (through its open core Session, whose fold the approvals read, or
   * appended to the file, which the next resume and the sessions projection fold).
   */
  async setApprovalMode(row: SessionRow, mode: ApprovalMode): Promise<void> {
    return setApprovalMode(this.#parts, row, mode);
  }

  /**
   * A person changed the session's thinking level: recorded at once as `settings_changed`
   * (the open core Session takes it for its next request). `null` goes back to the agent's
   * default, which is recorded as the level it is now, so the trace alone says what runs.
   */
  async setThinkingLevel(row: SessionRow, level: ThinkingLevel | null): Promise<void> {
    return setThinkingLevel(this.#parts, row, level);
  }

  /**
   * Record a host-decided fact (title, archive) in the session's trace: through its open core
   * Session when there is one, else appended by core to the trace on disk.
   */
  async recordFact(row: SessionRow, fact: OmniMessage<"event_msg">): Promise<void> {
    return recordFact(this.#parts, row, fact);
  }

  /**
   * Allows or forbids the network to a session's sandboxed commands (the route checks who may).
   * The sandbox is fixed when the core session is built, so a loaded session is rebuilt: at
   * once when idle, after its run when busy (the running task keeps the sandbox it started with).
   */
  async setSandboxNetwork(row: SessionRow, allowed: boolean): Promise<void> {
    return setSandboxNetwork(this.#parts, row, allowed);
  }

  /** An agent's state was replaced (snapshot import): reload its idle sessions, the others after their run. */
  reloadAgent(projectId: string, agentId: string): void {
    reloadAgent(this.#parts, projectId, agentId);
  }

  /** The project's models changed: tell every open session, and reload their core Sessions. */
  invalidateProject(projectId: string): void {
    invalidateProject(this.#parts, projectId);
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
    return forkSession(this.#parts, row, position);
  }

  /**
   * Restores the workspace files to record `at` (core's undoable `rewindSession`, files only). Refused while a task
   * runs; an idle loaded session is unloaded first (with its lease) and loads again from the trace with its next task.
   */
  async restoreFiles(row: SessionRow, at: number | string, force: boolean): Promise<RewindResult> {
    const hub = this.#hubs.get(row.sessionId);
    if (hub?.busy) throw busyError(hub);
    if (hub !== undefined) await this.#unload(hub);
    const agent = await this.agent(row.projectId, row.agentId);
    return agent.rewindSession({ sessionId: row.sessionId, to: at, what: "files", ...(force ? { force: true } : {}) });
  }

  /**
   * Deletes a session: its traces (with their companions) and its scratchpad move to the data
   * root's trash (core's session-trash: restorable by an owner, purged by the admin), its index
   * row goes, kept in the trash entry so a restore brings its settings back.
   */
  async delete(row: SessionRow, deletedBy: string): Promise<TrashEntry> {
    return deleteSession(this.#parts, row, deletedBy);
  }

  /**
   * 409 `session_busy` when another process (a CLI, another server) holds the session's lease:
   * asked before a change that would append to its trace, so nothing is half done. A session
   * loaded here is held by this server.
   */
  async refuseIfHeldElsewhere(row: SessionRow, doing: string): Promise<void> {
    return refuseIfHeldElsewhere(this.#parts, row, doing);
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
    return evictIdle(this.#parts);
  }

  async agent(projectId: string, agentId: string): Promise<Agent> {
    const key = `${projectId}/${agentId}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      // The server holds the lease of every session it has loaded (one writer per session).
      const holderCommand = this.#deps.ownership?.holderCommand ?? "penguin server";
      const options: Parameters<typeof createAgent>[0] = { root: this.#deps.root, projectId, agentId, env: this.#deps.env, holderCommand };
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
    this.#cluster.handOverBusy();
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

  async #resume(row: SessionRow): Promise<Session> {
    const agent = await this.agent(row.projectId, row.agentId);
    // The network allowance is the trace's (`settings_changed`); core takes the thinking level
    // and the approval mode from the trace itself.
    const sandbox = sessionSandbox(this.#deps.sandbox, (await this.#deps.traceInfo(row)).sandboxNetwork);
    // Cluster-wide first (the lease row), then core's file lease as ever.
    this.#cluster.claim(agent.paths, row.sessionId);
    try {
      return await agent.resumeSession({ sessionId: row.sessionId, ...(sandbox === undefined ? {} : { sandbox }) });
    } catch (error) {
      this.#cluster.release(row.sessionId);
      throw error;
    }
  }

  async #unload(hub: SessionHub): Promise<void> {
    const core = hub.core;
    hub.core = undefined;
    if (core === undefined) return;
    await core.dispose();
    this.#cluster.release(hub.sessionId);
  }
}
