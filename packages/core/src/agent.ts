/**
 * createAgent: the SDK's entry point, and the composition of a session from files.
 *
 *   const agent = await createAgent({ root?, projectId?, agentId? });
 *   const session = await agent.createSession({ workspaceDir?, provider?, modelId?, thinkingLevel? });
 *   for await (const m of session.run("…", { approve: async () => "allow" })) …
 *   const again = await agent.resumeSession({ sessionId: session.id });
 *
 * Everything a session is made of comes from the data root: the model table and defaults
 * (`.project_config.toml`), the agent's behaviour (`agent_state/`), and, on resume, the
 * session's own trace, which fixes the model, the system prompt and the workspace for the
 * session's whole life. Only the tools are rebuilt from the current Agent State.
 *
 * Subagents: a top-level session gets a SubagentRunner (subagents/runner.ts), so its
 * Environment offers the subagent tools; a session whose meta says `source: "subagent"` gets
 * none, which caps the depth at 1 (also after resume, since the source is in the trace).
 *
 * This file is the composition point only: the Agent's methods delegate to the modules named
 * for each job, which take what they need of the Agent (`AgentParts`): session-build.ts
 * (assembling and wiring a session), session-resume.ts (resume from the trace),
 * session-reads.ts (state and inspect at a record), session-writes.ts (forks and facts of
 * sessions not open here); the option shapes are in agent-options.ts.
 */
import { existsSync } from "node:fs";
import type { OmniMessage, SessionMetaPayload } from "@penguin/omnimessage";
import { settingsChanged } from "@penguin/omnimessage";
import { foldCache, initialSessionState, type LineCutOptions, type SnapshotSource } from "@penguin/trace";
import type { CreateAgentOptions, CreateSessionOptions, ReplayParts, ResumeSessionOptions } from "./agent-options.js";
import { PenguinError } from "./errors.js";
import { ToolCallIdAllocator } from "./llm/tool-call-ids.js";
import { runReplay, type ReplayOptions, type ReplayReport } from "./replay/replay-session.js";
import { Session } from "./session.js";
import { assemble, buildReplaySession, buildSession, sessionConfinement, sessionInstructions, sessionWorkspace, type AgentParts } from "./session-build.js";
import { inspectState, sessionState, type SessionStateAt, type SessionStateOptions } from "./session-reads.js";
import { resumeSession } from "./session-resume.js";
import { forkSession, recordSessionFact, type ForkSessionOptions } from "./session-writes.js";
import { ensureAgentState, type AgentState } from "./state/agent-state.js";
import { newSessionId } from "./state/ids.js";
import { loadMemoryIndex } from "./state/memory.js";
import { agentPaths, DEFAULT_AGENT, DEFAULT_PROJECT, resolveRoot, type AgentPaths } from "./state/paths.js";
import { readProjectConfig, type ProjectConfig } from "./state/project-config.js";
import { assembleSystemPrompt } from "./state/prompt.js";
import { SharedByContent } from "./state/shared-by-content.js";
import type { ForkPosition } from "./trace/fork.js";
import { rewindSession, type RewindResult, type RewindWhat } from "./trace/workspace-rewind.js";
import { forkWorkspace, type ForkWorkspace } from "./trace/workspace-fork.js";
import { listTracedSessions } from "./trace/reader.js";
import { defaultHolderCommand, holdSession, whileHolding } from "./trace/session-lease.js";
import type { SessionView } from "./trace/state-at.js";

export type { CreateAgentOptions, CreateSessionOptions, ReplayParts, ResumeSessionOptions } from "./agent-options.js";
export type { SessionStateAt, SessionStateOptions } from "./session-reads.js";
export { isThinkingLevel } from "./thinking-level.js";

export class Agent {
  readonly paths: AgentPaths;
  readonly #options: CreateAgentOptions;
  /** The process's one fold cache (@penguin/trace state-at.ts `foldCache`), shared by every agent. */
  readonly #folds = foldCache;
  /** What the session modules need of this agent (session-build.ts `AgentParts`). */
  readonly #parts: AgentParts;

  constructor(paths: AgentPaths, options: CreateAgentOptions) {
    this.paths = paths;
    this.#options = options;
    this.#parts = {
      paths,
      options,
      // One copy of the agent state for every session while its files do not change (state/shared-by-content.ts).
      sharedState: new SharedByContent<AgentState>(),
      childAgent: (agentId) => this.#childAgent(agentId),
      // A session's lease for this process (`session_busy` when another holder runs it).
      hold: (sessionId) => holdSession(this.paths, sessionId, this.#options.holderCommand ?? defaultHolderCommand()),
    };
  }

  get projectId(): string {
    return this.paths.projectId;
  }

  get agentId(): string {
    return this.paths.agentId;
  }

  /** The project's config as it is on disk now. */
  projectConfig(): ProjectConfig {
    return readProjectConfig(this.paths.projectConfig);
  }

  async createSession(options: CreateSessionOptions = {}): Promise<Session> {
    const { state, config, endpoint } = await assemble(this.#parts, { provider: options.provider, modelId: options.modelId });
    const workspace = sessionWorkspace(this.#parts, options.workspaceDir);
    const now = new Date();
    const sessionId = newSessionId(now);
    const memory = await loadMemoryIndex(this.paths, workspace.path, { temporaryWorkspace: workspace.temporary });
    const sandbox = sessionConfinement(this.#parts, options.sandbox, workspace.path, sessionId);
    const instructions = sessionInstructions(this.#parts, sandbox, workspace.path);
    const systemPrompt = assembleSystemPrompt(state, {
      workspace: workspace.path,
      provider: endpoint.provider,
      modelId: endpoint.modelId,
      sessionId,
      now,
      memory,
      projectInstructions: instructions.loaded,
    });
    const meta: SessionMetaPayload = {
      session_id: sessionId,
      provider: endpoint.provider,
      model_id: endpoint.modelId,
      model_context_window: endpoint.contextWindow ?? "unknown",
      system_prompt: systemPrompt,
      agent_state: this.paths.agentState,
      workspace: workspace.path,
    };
    if (options.source !== undefined) meta.source = options.source;
    // Who created it is a fact of the trace: a host names itself, a parent agent or a schedule
    // is its source, and anything else came through the SDK.
    meta.client = options.client ?? options.source ?? "sdk";
    const thinkingLevel = options.thinkingLevel ?? state.config.model.thinking_level ?? config.default_chat?.thinking_level ?? "medium";
    // The starting settings are the session's first fact: inspect and resume read them from event 2 on.
    const opening = settingsChanged({ ...(options.approvalMode === undefined ? {} : { approval_mode: options.approvalMode }), thinking_level: thinkingLevel });
    const lease = this.#parts.hold(sessionId);
    const session = await whileHolding(lease, () => buildSession(this.#parts, { meta, state, config, endpoint, thinkingLevel, seed: initialSessionState, writerIndex: 1, existing: false, ids: new ToolCallIdAllocator(), resumed: false, sandbox, opening, approvalMode: options.approvalMode, lease, ...(options.mcpServers === undefined ? {} : { sessionMcpServers: options.mcpServers }) }));
    session.projectInstructions = instructions;
    if (options.persist) await session.persist();
    return session;
  }

  /** The session as its trace left it (session-resume.ts), under its lease. */
  resumeSession(options: ResumeSessionOptions): Promise<Session> {
    return resumeSession(this.#parts, options);
  }

  /**
   * Fork a session: a new session that starts as a copy of `sessionId` cut after a completed
   * task (the last one, or the answer at `position`), with its own id, trace and scratchpad;
   * or, with `at`, at any record (trace/fork.ts `forkSessionFilesAt`), starting with a
   * `forked_from` event. The source must be idle (the host checks). Returns the new session id.
   */
  forkSession(options: ForkSessionOptions): Promise<string> {
    return forkSession(this.paths, options);
  }

  /**
   * Rewind a session in place to record `to` (trace/workspace-rewind.ts): its workspace's
   * files, its conversation, or both (default); undoable, refused over outside changes unless `force`.
   */
  rewindSession(options: { sessionId: string; to: number | string; what?: RewindWhat; force?: boolean }): RewindResult {
    return rewindSession(this.#parts, options.sessionId, options.to, options);
  }

  /** Give a fork made at `at` its own workspace holding the source's files as of then (trace/workspace-fork.ts). */
  forkWorkspace(options: { sourceId: string; forkId: string; at: number | string }): ForkWorkspace | undefined {
    const settings = this.#options.checkpoints === false ? undefined : this.#options.checkpoints;
    return forkWorkspace(this.paths, options.sourceId, options.forkId, options.at, settings);
  }

  /**
   * A session's state folded from its trace with `evolve`: at its end, or at `at` (an event
   * count or a `NNN:LLLLLL` position). Works for any session on disk, running or not; the
   * answer is what the trace holds, so a running task shows up to its last durable record.
   */
  sessionState(options: SessionStateOptions): Promise<SessionStateAt> {
    return sessionState(this.paths, this.#folds, options);
  }

  /**
   * Append a fact the host decided (title, archive…) to a session that is not open in this
   * process (an open one records through its own Session, whose writer knows the positions).
   */
  recordSessionFact(sessionId: string, fact: OmniMessage<"event_msg">): void {
    recordSessionFact(this.#parts, sessionId, fact);
  }

  /**
   * What `penguin inspect` shows of a session after record `at` (a 1-based count across
   * rotated files, or `NNN:LLLLLL`; default: the last record): the next context, open calls,
   * pending approvals, carry-over, files. See trace/state-at.ts. With `snapshots` (as for
   * `sessionState`) it starts from the nearest stored snapshot instead of the whole recording;
   * with `cut` too, the records it reads have their long texts cut (a server's answer).
   */
  inspectState(options: { sessionId: string; at?: number | string; snapshots?: SnapshotSource; cut?: LineCutOptions }): Promise<SessionView> {
    return inspectState(this.paths, this.#folds, options);
  }

  /**
   * Re-execute a recorded session through the engine (see replay/replay-session.ts): a new
   * session of this agent, `source: "replay"`, and a verdict, `identical` or where it diverged.
   */
  replay(options: ReplayOptions): Promise<ReplayReport> {
    return runReplay(this, options);
  }

  /**
   * Builds a session from a recording's invariants with a replay's parts swapped in. Used by
   * `replay()`; no model entry is needed (the model is the recording).
   */
  buildReplaySession(meta: SessionMetaPayload, parts: ReplayParts, vision: boolean): Promise<Session> {
    return buildReplaySession(this.#parts, meta, parts, vision);
  }

  /** The most recently active session of this agent, if any. */
  latestSessionId(): string | undefined {
    return listTracedSessions(this.paths)[0]?.sessionId;
  }

  /** The agent a subagent runs as: this one, or another existing agent of the same project. */
  async #childAgent(agentId: string | undefined): Promise<Agent> {
    if (agentId === undefined || agentId === this.agentId) return this;
    const paths = agentPaths(this.paths.root, this.projectId, agentId);
    if (!existsSync(paths.agentState)) {
      throw new PenguinError("invalid_argument", `there is no agent "${agentId}" in project ${this.projectId}; omit agent_id to use this agent`);
    }
    return createAgent({ ...this.#options, root: this.paths.root, projectId: this.projectId, agentId });
  }
}

/** Open (and on first use, initialise) an agent under the data root. */
export async function createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
  const root = resolveRoot(options.root, options.env ?? process.env);
  const paths = agentPaths(root, options.projectId ?? DEFAULT_PROJECT, options.agentId ?? DEFAULT_AGENT);
  await ensureAgentState(paths);
  return new Agent(paths, options);
}
