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
 */
import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { settingsChanged, type OmniMessage, type SessionMetaPayload, type SettingsChangedPayload } from "@penguin/omnimessage";
import { THINKING_LEVELS, type ModelEndpoint, type ThinkingLevel } from "@penguin/models";
import { Effect } from "effect";
import { ContextEngine } from "./engine/context-engine.js";
import { LiveFold } from "./engine/session-fold.js";
import { Resume, ResumeLive } from "./engine/resume.js";
import type { SleepFn } from "./engine/reconnect.js";
import { GatewayLLM } from "./llm/gateway-llm.js";
import { ToolCallIdAllocator } from "./llm/tool-call-ids.js";
import { createEnvironment, type EnvironmentConfig } from "./environment/index.js";
import type { CommandSandbox, SandboxOptions } from "./environment/commands/sandbox.js";
import { sessionBoundary, sessionCommandSandbox } from "./environment/commands/session-sandbox.js";
import { visionDescriber } from "./llm/vision-describer.js";
import { parseMcpServers } from "./environment/mcp/config.js";
import { loadMcpHub } from "./environment/mcp/load-hub.js";
import type { McpStdioPolicy } from "./environment/mcp/stdio-launch.js";
import { createCommandPolicy } from "./approvals/command-policy.js";
import { PenguinError } from "./errors.js";
import { ensureAgentState, loadAgentState, type AgentState } from "./state/agent-state.js";
import { SharedByContent } from "./state/shared-by-content.js";
import { loadMemoryIndex } from "./state/memory.js";
import { assembleSystemPrompt } from "./state/prompt.js";
import { agentPaths, DEFAULT_AGENT, DEFAULT_PROJECT, resolveRoot, sessionScratchpad, traceFilePath, type AgentPaths } from "./state/paths.js";
import { isSessionId, newSessionId, newTmpWorkspaceName, sessionDate } from "./state/ids.js";
import { readProjectConfig, type ProjectConfig } from "./state/project-config.js";
import { resolveModelEndpoint } from "./state/model-resolution.js";
import { listTracedSessions, readTraceFile, sessionTraceFiles } from "./trace/reader.js";
import { survivorsOfClosedFile, withSurvivors } from "./trace/survivors.js";
import { forkScratchpad, forkSessionFiles, forkSessionFilesAt, type ForkPosition } from "./trace/fork.js";
import { stateAt, stateAtFromSnapshots, type SessionView } from "./trace/state-at.js";
import { loadRecording } from "./replay/recording.js";
import { FileLines, initialSessionState, type ReadFileLines, type SnapshotThresholds, readForResume, sessionSettingsOfFiles, parseAt, plainSessionState, SessionFolds, type PlainSessionState, TraceWriter, type SessionState, type LineCutOptions, type SnapshotSource, type StateAtResult, type StateAtTarget } from "@penguin/trace";
import { Session } from "./session.js";
import { defaultHolderCommand, holdSession, whileHolding } from "./trace/session-lease.js";
import type { SessionLease } from "@penguin/trace";
import { createSubagentRunner } from "./subagents/runner.js";
import type { EnvironmentInterface, LLMInterface, SubagentRunner } from "./interfaces.js";
import { runReplay, type ReplayOptions, type ReplayReport } from "./replay/replay-session.js";

export interface CreateAgentOptions {
  /** Data root; defaults to PENGUIN_HOME, then ~/.penguin/data. */
  root?: string;
  projectId?: string;
  agentId?: string;
  /** Environment for key fallbacks and root resolution (tests pass their own). */
  env?: NodeJS.ProcessEnv;
  /** The reconnect wait; tests inject one that does not sleep. */
  sleep?: SleepFn;
  /** Injected fetch for the model gateway (tests, proxies). */
  fetch?: typeof fetch;
  /**
   * Test and embedding seams of the Environment: per-tool timeouts, the timer that arms them,
   * and the file tools' filesystem. Production uses the defaults.
   */
  environment?: Pick<EnvironmentConfig, "timeouts" | "scheduleTimeout" | "fileOperations">;
  /**
   * Run every session's commands in a bubblewrap sandbox (a session's own `sandbox` option
   * wins). Enabled where bwrap cannot run, creating or resuming a session fails with
   * `sandbox_unavailable`: a host that prefers to run unsandboxed checks `probeSandbox()` first.
   */
  sandbox?: SandboxOptions;
  /** The bwrap executable; default `bwrap` from PATH. */
  bwrapPath?: string;
  /**
   * Which stdio MCP servers may start (a multi-user server's admin list); none: all may. Either
   * way a session's stdio servers start inside its sandbox when it has one.
   */
  mcpStdioPolicy?: McpStdioPolicy;
  /**
   * When a session's trace file gets a resume snapshot (a cache beside it that lets the next
   * resume fold only what came after): files of at least `minLines` lines, refreshed when a
   * task ends or the session ends once the file has grown `refreshLines` past the last one
   * (both default 2000). Lower values write more often; the crash suite uses 1, so every kill
   * meets a recent snapshot.
   */
  resumeSnapshot?: SnapshotThresholds;
  /**
   * What the leases of this agent's sessions name as their holder (`penguin chat`, `penguin
   * server`); default `node <script>`. A session is run by one process at a time: creating or
   * resuming one takes its lease (trace/session-lease.ts), `dispose` lets it go.
   */
  holderCommand?: string;
}

export interface CreateSessionOptions {
  /** Must exist when given; otherwise a temporary workspace `workspaces/tmp-<8hex>` is made. */
  workspaceDir?: string;
  /** The model pair, both or neither; neither means the project's default model. */
  provider?: string;
  modelId?: string;
  thinkingLevel?: ThinkingLevel;
  /** Marks sessions started by a parent agent or a schedule. */
  source?: "subagent" | "schedule";
  /**
   * Write the trace header at once, so the session exists on disk (and can be resumed or
   * listed) before its first task. By default the file appears with the first task.
   */
  persist?: boolean;
  /** This session's sandbox; default the agent's `sandbox` option (none: unsandboxed). */
  sandbox?: SandboxOptions;
  /**
   * The approval mode the host starts the session with (the mode itself is the host's: core
   * only sees its ApproveFn). Recorded with the starting thinking level in the session's
   * opening `settings_changed`, right after its `session_meta`.
   */
  approvalMode?: string;
}

/** A session's boundary, and the sandbox its commands run in (the same description, or none). */
interface SessionConfinement {
  commands: CommandSandbox | undefined;
  boundary: CommandSandbox | undefined;
}

/** What a child session is given: the parent's commands sandbox and file boundary, as options. */
function inheritedSandbox(commands: CommandSandbox | undefined, b: CommandSandbox): SandboxOptions {
  return { enabled: commands !== undefined, confineFiles: true, network: b.network, hide: b.hidden, privateHomes: b.privateHomes ?? [] };
}

export interface ResumeSessionOptions {
  sessionId: string;
  /** As for createSession: the sandbox is a runtime choice, not part of the trace. */
  sandbox?: SandboxOptions;
}

/** What a replay swaps in when it builds a session (see replay/replay-session.ts). */
export interface ReplayParts {
  llm: LLMInterface;
  wrapEnvironment?: (env: EnvironmentInterface) => EnvironmentInterface;
  subagents?: SubagentRunner;
  onLine?: (m: OmniMessage) => void;
  /** The recording's starting settings (its opening `settings_changed`), written again the same way. */
  startingSettings?: SettingsChangedPayload;
  /** The thinking level the recording starts from (replay/plan.ts); the tasks then pass theirs. */
  thinkingBaseline?: string;
}

/** A replay re-enacts recorded waits without sleeping: the waits are in the recording. */
const noWait = async (): Promise<void> => undefined;

/** `agent.sessionState()`'s answer: the fold at a record as plain JSON, and where that record is. */
export type SessionStateAt = Omit<StateAtResult, "state" | "fold"> & { state: PlainSessionState };

export interface SessionStateOptions {
  sessionId: string;
  /** An event count from the session start (`120`) or a position (`"001:000042"`); the end when absent. */
  at?: string | number;
  /**
   * Stored snapshots to start from (a host's projections database, the timeline projection's
   * `timelineSnapshots`): only the events after the nearest one are read. Without one, or when
   * it has nothing for the session, the answer comes from this agent's in-memory snapshots.
   */
  snapshots?: SnapshotSource;
}

interface Assembled {
  state: AgentState;
  config: ProjectConfig;
  endpoint: ModelEndpoint;
}

export class Agent {
  readonly paths: AgentPaths;
  readonly #options: CreateAgentOptions;
  /** The fold cache (@penguin/trace state-at.ts): parsed traces and snapshots for `sessionState`, recordings' snapshots for `inspectState`. */
  readonly #folds = new SessionFolds();
  /** One copy of the agent state for every session while its files do not change (state/shared-by-content.ts). */
  readonly #sharedState = new SharedByContent<AgentState>();

  constructor(paths: AgentPaths, options: CreateAgentOptions) {
    this.paths = paths;
    this.#options = options;
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
    const { state, config, endpoint } = await this.#assemble({ provider: options.provider, modelId: options.modelId });
    const workspace = this.#workspace(options.workspaceDir);
    const now = new Date();
    const sessionId = newSessionId(now);
    const memory = await loadMemoryIndex(this.paths, workspace.path, { temporaryWorkspace: workspace.temporary });
    const systemPrompt = assembleSystemPrompt(state, {
      workspace: workspace.path,
      provider: endpoint.provider,
      modelId: endpoint.modelId,
      sessionId,
      now,
      memory,
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
    const thinkingLevel = options.thinkingLevel ?? state.config.model.thinking_level ?? config.default_chat?.thinking_level ?? "medium";
    const sandbox = this.#sandbox(options.sandbox, meta.workspace, sessionId);
    // The starting settings are the session's first fact: inspect and resume read them from event 2 on.
    const opening = settingsChanged({ ...(options.approvalMode === undefined ? {} : { approval_mode: options.approvalMode }), thinking_level: thinkingLevel });
    const lease = this.#hold(sessionId);
    const session = await whileHolding(lease, () => this.#build({ meta, state, config, endpoint, thinkingLevel, seed: initialSessionState, writerIndex: 1, existing: false, ids: new ToolCallIdAllocator(), resumed: false, sandbox, opening, approvalMode: options.approvalMode, lease }));
    if (options.persist) await session.persist();
    return session;
  }

  async resumeSession(options: ResumeSessionOptions): Promise<Session> {
    const { sessionId } = options;
    if (!isSessionId(sessionId)) {
      throw new PenguinError("session_not_found", `"${sessionId}" is not a session id (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)`);
    }
    if (sessionTraceFiles(this.paths, sessionId).length === 0) {
      throw new PenguinError("session_not_found", `no session ${sessionId} in ${this.paths.projectId}/${this.paths.agentId} (looked in ${this.paths.tracesDir})`);
    }
    // Held before the trace is read: what is read is then what no other process appends to.
    const lease = this.#hold(sessionId);
    return whileHolding(lease, () => this.#resumeHeld(options, lease));
  }

  async #resumeHeld(options: ResumeSessionOptions, lease: SessionLease): Promise<Session> {
    const { sessionId } = options;
    const files = sessionTraceFiles(this.paths, sessionId);
    const last = files[files.length - 1];
    if (last === undefined) {
      throw new PenguinError("session_not_found", `no session ${sessionId} in ${this.paths.projectId}/${this.paths.agentId} (looked in ${this.paths.tracesDir})`);
    }
    const pick = pickResumeFile(files, { fold: true, snapshot: this.#options.resumeSnapshot });
    const resume = Effect.runSync(Effect.provide(Resume, ResumeLive));
    const seed = Effect.runSync(resume.seed(pick.messages, pick.folded === undefined ? {} : { folded: pick.folded }));
    const meta = seed.meta ?? pick.meta;
    if (meta === undefined) {
      throw new PenguinError("session_unreadable", `${last.file} has no readable session_meta line, nor has any earlier file of the session; the trace cannot be resumed`);
    }
    if (!existsSync(meta.workspace)) {
      throw new PenguinError("workspace_not_found", `the workspace of ${sessionId} no longer exists: ${meta.workspace}`);
    }
    const sandbox = this.#sandbox(options.sandbox, meta.workspace, sessionId);
    const { state, config, endpoint } = await this.#assemble({ provider: meta.provider, modelId: meta.model_id });
    const ids = new ToolCallIdAllocator();
    ids.reserve(seed.toolCallIds);
    // The session keeps the settings its trace last recorded (from its first file on: a
    // rotated file does not repeat them); the agent's default thinking level otherwise.
    const settings = pick.index > 1 ? sessionSettingsOfFiles(files) : seed.state.settings;
    const recordedLevel = settings.thinkingLevel;
    const thinkingLevel = recordedLevel !== undefined && isThinkingLevel(recordedLevel) ? recordedLevel : (state.config.model.thinking_level ?? config.default_chat?.thinking_level ?? "medium");
    const session = this.#build({
      meta,
      state,
      config,
      endpoint,
      thinkingLevel,
      seed: { ...seed.state, settings: { ...settings, thinkingLevel } },
      writerIndex: pick.index,
      existing: true,
      ...(pick.extent === undefined ? {} : { knownExtent: pick.extent }),
      ...(pick.lines === undefined ? {} : { readLines: { index: pick.index, messages: pick.messages, lines: pick.lines, snapshotLines: pick.snapshotLines, lastLine: pick.extent?.lines } }),
      toolsWritten: seed.state.toolsAnnounced,
      ids,
      resumed: true,
      closeDangling: (fold) => Effect.runSync(resume.close(fold)),
      sandbox,
      approvalMode: settings.approvalMode,
      lease,
    });
    return session;
  }

  /**
   * Fork a session: a new session that starts as a copy of `sessionId` cut after a completed
   * task (the last one, or the answer at `position`), with its own id, trace and scratchpad;
   * or, with `at`, at any record (trace/fork.ts `forkSessionFilesAt`), starting with a
   * `forked_from` event. The source must be idle (the host checks). Returns the new session id.
   */
  async forkSession(options: { sessionId: string; position?: ForkPosition; at?: number | string }): Promise<string> {
    if (!isSessionId(options.sessionId)) throw new PenguinError("session_not_found", `"${options.sessionId}" is not a session id`);
    if (options.position !== undefined && options.at !== undefined) throw new PenguinError("invalid_argument", "give either position (a task's answer) or at (any record) to forkSession, not both");
    const newId = newSessionId(new Date());
    if (options.at !== undefined) forkSessionFilesAt(this.paths, options.sessionId, newId, options.at);
    else forkSessionFiles(this.paths, options.sessionId, newId, options.position);
    await forkScratchpad(this.paths, options.sessionId, newId);
    return newId;
  }

  /**
   * A session's state folded from its trace with `evolve`: at its end, or at `at` (an event
   * count or a `NNN:LLLLLL` position). Works for any session on disk, running or not; the
   * answer is what the trace holds, so a running task shows up to its last durable record.
   */
  async sessionState(options: SessionStateOptions): Promise<SessionStateAt> {
    const { sessionId } = options;
    if (!isSessionId(sessionId)) {
      throw new PenguinError("session_not_found", `"${sessionId}" is not a session id (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)`);
    }
    const files = sessionTraceFiles(this.paths, sessionId);
    if (files.length === 0) {
      throw new PenguinError("session_not_found", `no session ${sessionId} in ${this.paths.projectId}/${this.paths.agentId} (looked in ${this.paths.tracesDir})`);
    }
    let target: StateAtTarget | undefined;
    try {
      target = options.at === undefined ? undefined : parseAt(options.at);
    } catch (error) {
      throw new PenguinError("invalid_argument", error instanceof Error ? error.message : String(error));
    }
    const folded = options.snapshots !== undefined ? await this.#folds.stateAtWith(options.snapshots, sessionId, sessionId, files, target) : this.#folds.stateAtFiles(sessionId, files, target);
    // Plain objects and arrays (the fold's Sequences stay inside it): the shape inspect and /state carry as `state`.
    return { state: plainSessionState(folded.state), events: folded.events, totalEvents: folded.totalEvents, position: folded.position };
  }

  /**
   * Append a fact the host decided (title, archive…) to a session that is not open in this
   * process (an open one records through its own Session, whose writer knows the positions).
   */
  recordSessionFact(sessionId: string, fact: OmniMessage<"event_msg">): void {
    if (!isSessionId(sessionId)) throw new PenguinError("session_not_found", `"${sessionId}" is not a session id`);
    const files = sessionTraceFiles(this.paths, sessionId);
    if (files.length === 0) throw new PenguinError("session_not_found", `no session ${sessionId} in ${this.paths.projectId}/${this.paths.agentId}`);
    // A writer like any other: refused while another process (or an open Session) runs it.
    const lease = this.#hold(sessionId);
    try {
      const pick = pickResumeFile(sessionTraceFiles(this.paths, sessionId), { fold: false });
      if (pick.meta === undefined) throw new PenguinError("session_unreadable", `session ${sessionId} has no readable session_meta line; nothing was recorded`);
      const date = sessionDate(sessionId);
      const writer = new TraceWriter({ fileFor: (index) => traceFilePath(this.paths, date, sessionId, index), index: pick.index, meta: pick.meta, existing: true, toolsWritten: true });
      try {
        writer.append(fact);
      } finally {
        writer.close();
      }
    } finally {
      lease.release();
    }
  }

  /**
   * What `penguin inspect` shows of a session after record `at` (a 1-based count across
   * rotated files, or `NNN:LLLLLL`; default: the last record): the next context, open calls,
   * pending approvals, carry-over, files. See trace/state-at.ts. With `snapshots` (as for
   * `sessionState`) it starts from the nearest stored snapshot instead of the whole recording;
   * with `cut` too, the records it reads have their long texts cut (a server's answer).
   */
  async inspectState(options: { sessionId: string; at?: number | string; snapshots?: SnapshotSource; cut?: LineCutOptions }): Promise<SessionView> {
    if (options.snapshots !== undefined && isSessionId(options.sessionId)) {
      const view = await stateAtFromSnapshots(options.snapshots, options.sessionId, sessionTraceFiles(this.paths, options.sessionId), options.at, options.cut === undefined ? {} : { cut: options.cut });
      if (view !== undefined) return view;
    }
    const recording = loadRecording({ paths: this.paths }, options.sessionId);
    return stateAt(recording, options.at ?? recording.events.length, { folds: this.#folds });
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
  async buildReplaySession(meta: SessionMetaPayload, parts: ReplayParts, vision: boolean): Promise<Session> {
    const config = readProjectConfig(this.paths.projectConfig);
    const state = await loadAgentState(this.paths);
    const contextWindow = meta.model_context_window === "unknown" ? undefined : meta.model_context_window;
    const endpoint: ModelEndpoint = { provider: meta.provider, modelId: meta.model_id, clientType: "openai-chat", baseUrl: "replay:", vision, ...(contextWindow === undefined ? {} : { contextWindow }) };
    // The recording's starting settings are written again; from its baseline the engine then
    // records the same thinking-level changes the recording has (the replay passes each
    // task's level). A recording that never names a level gets no baseline: nothing changes.
    const opening = parts.startingSettings;
    const recordedLevel = parts.thinkingBaseline;
    const thinkingLevel = recordedLevel !== undefined && isThinkingLevel(recordedLevel) ? recordedLevel : (state.config.model.thinking_level ?? config.default_chat?.thinking_level ?? "medium");
    const seed: SessionState = recordedLevel === undefined ? initialSessionState : { ...initialSessionState, settings: { thinkingLevel: recordedLevel } };
    const lease = this.#hold(meta.session_id);
    return whileHolding(lease, () => this.#build({
      meta,
      state,
      config,
      endpoint,
      thinkingLevel,
      seed,
      writerIndex: 1,
      existing: false,
      ids: new ToolCallIdAllocator(),
      resumed: false,
      replay: parts,
      sandbox: this.#sandbox(undefined, meta.workspace, meta.session_id),
      ...(opening === undefined ? {} : { opening: settingsChanged(opening), approvalMode: opening.approval_mode }),
      lease,
    }));
  }

  /** Takes a session's lease for this process (`session_busy` when another holder runs it). */
  #hold(sessionId: string): SessionLease {
    return holdSession(this.paths, sessionId, this.#options.holderCommand ?? defaultHolderCommand());
  }

  /** The most recently active session of this agent, if any. */
  latestSessionId(): string | undefined {
    return listTracedSessions(this.paths)[0]?.sessionId;
  }

  /**
   * What a session may touch (environment/commands/session-sandbox.ts): its commands see it when
   * they run in bwrap, and its file tools keep to it whenever there is one, with the commands in
   * bwrap or with `confineFiles` where they run without it.
   */
  #sandbox(requested: SandboxOptions | undefined, workspace: string, sessionId: string): SessionConfinement {
    const options = requested ?? this.#options.sandbox;
    if (options === undefined || !(options.enabled || options.confineFiles === true)) return { commands: undefined, boundary: undefined };
    const place = { workspace, scratchpad: sessionScratchpad(this.paths, sessionId) };
    const commands = sessionCommandSandbox(this.paths, options, place, this.#options.bwrapPath);
    return { commands, boundary: commands ?? sessionBoundary(this.paths, options, place, this.#options.bwrapPath) };
  }

  /** describe_image for a model without vision: the project's vision model, when one is set. */
  #describer(config: ProjectConfig, endpoint: ModelEndpoint): Pick<EnvironmentConfig, "describeImage"> {
    if (endpoint.vision === true || config.vision_model === undefined) return {};
    const ref = { provider: config.vision_model.provider, modelId: config.vision_model.model_id };
    try {
      const vision = resolveModelEndpoint(config, ref, { env: this.#options.env ?? process.env, configFile: this.paths.projectConfig });
      return { describeImage: visionDescriber(vision, { fetch: this.#options.fetch }) };
    } catch {
      // A vision_model without an entry: describe_image explains that none is configured.
      return {};
    }
  }

  async #assemble(ref: { provider?: string | undefined; modelId?: string | undefined }): Promise<Assembled> {
    const config = readProjectConfig(this.paths.projectConfig);
    const endpoint = resolveModelEndpoint(config, ref, { env: this.#options.env ?? process.env, configFile: this.paths.projectConfig });
    const state = this.#sharedState.share(await loadAgentState(this.paths));
    return { state, config, endpoint };
  }

  #workspace(dir: string | undefined): { path: string; temporary: boolean } {
    if (dir !== undefined) {
      const abs = isAbsolute(dir) ? dir : resolve(dir);
      if (!existsSync(abs) || !statSync(abs).isDirectory()) {
        throw new PenguinError("workspace_not_found", `workspace ${abs} does not exist or is not a directory; create it first or omit it for a temporary workspace`);
      }
      return { path: realpathSync(abs), temporary: false };
    }
    const path = resolve(this.paths.workspacesDir, newTmpWorkspaceName());
    mkdirSync(path, { recursive: true });
    return { path, temporary: true };
  }

  async #build(p: {
    meta: SessionMetaPayload;
    state: AgentState;
    config: ProjectConfig;
    endpoint: ModelEndpoint;
    thinkingLevel: ThinkingLevel;
    /** What the session's live fold starts from (an empty session, or what resume folded). */
    seed: SessionState;
    writerIndex: number;
    existing: boolean;
    /** Resume: what was read of the file the writer goes on with (TraceWriterOptions.knownExtent). */
    knownExtent?: { bytes: number; lines: number };
    /** Resume: the messages read of that file and their lines (FileLines: its snapshot when the session ends). */
    readLines?: ReadFileLines;
    toolsWritten?: boolean;
    ids: ToolCallIdAllocator;
    resumed: boolean;
    /** Resume: record, through the session's fold, what the crash left dangling. */
    closeDangling?: (fold: LiveFold) => void;
    sandbox: SessionConfinement;
    replay?: ReplayParts;
    approvalMode?: string | undefined;
    /** A new session's starting settings, written right after its session_meta. */
    opening?: OmniMessage<"event_msg">;
    /** The session's lease, held from before its first line; the Session lets it go on dispose. */
    lease: SessionLease;
  }): Promise<Session> {
    const { meta, state, config, endpoint } = p;
    const sessionId = meta.session_id;
    const scratchpadDir = sessionScratchpad(this.paths, sessionId);
    const mcpServers = parseMcpServers(state.config.tools.mcpServers, this.paths.systemConfig);
    let built: Session | undefined;
    const subagents =
      meta.source === "subagent"
        ? undefined
        : p.replay !== undefined
          ? p.replay.subagents
          : createSubagentRunner({
            workspaceDir: meta.workspace,
            ...(p.sandbox.boundary === undefined ? {} : { sandbox: inheritedSandbox(p.sandbox.commands, p.sandbox.boundary) }),
            agentFor: (agentId) => this.#childAgent(agentId),
            parent: () => ({ provider: meta.provider, modelId: meta.model_id, thinkingLevel: built?.thinkingLevel ?? p.thinkingLevel }),
          });
    const realEnv = createEnvironment({
      ...(subagents === undefined ? {} : { subagents }),
      workspaceDir: meta.workspace,
      scratchpadDir,
      vault: state.vault,
      loginShell: wantsLoginShell(state.config, this.#options.env ?? process.env),
      vision: endpoint.vision ?? false,
      builtinOverride: state.config.tools.builtin,
      extraTools: mcpServers.length > 0 ? await loadMcpHub(mcpServers, { cwd: meta.workspace, ...(p.sandbox.commands === undefined ? {} : { sandbox: p.sandbox.commands }), ...(this.#options.mcpStdioPolicy === undefined ? {} : { stdioPolicy: this.#options.mcpStdioPolicy }) }) : undefined,
      ...this.#describer(config, endpoint),
      ...this.#options.environment,
      ...(p.sandbox.commands === undefined ? {} : { sandbox: p.sandbox.commands }),
      ...(p.sandbox.boundary === undefined ? {} : { boundary: p.sandbox.boundary }),
      readOnlyForTools: [this.paths.agentState],
      writableForTools: [this.paths.memoryDir],
    });
    const env = p.replay?.wrapEnvironment?.(realEnv) ?? realEnv;
    const llm = p.replay?.llm ?? new GatewayLLM({
      endpoint,
      systemPrompt: meta.system_prompt,
      tools: [],
      thinkingLevel: p.thinkingLevel,
      requestTimeoutMs: state.config.model.timeoutMs,
      ids: p.ids,
      fetch: this.#options.fetch,
    });
    const date = sessionDate(sessionId);
    const writer = new TraceWriter({
      fileFor: (index) => traceFilePath(this.paths, date, sessionId, index),
      index: p.writerIndex,
      meta,
      existing: p.existing,
      toolsWritten: p.toolsWritten,
      ...(p.knownExtent === undefined ? {} : { knownExtent: p.knownExtent }),
      ...(p.opening === undefined ? {} : { opening: [p.opening] }),
    });
    // What the file's resume snapshot needs when the session ends (registered before anything is written).
    const fileLines = new FileLines(writer, p.existing ? p.readLines : "new-file", this.#options.resumeSnapshot);
    // The session's state: folded from every line the writer writes, from the seed on.
    const fold = new LiveFold(writer, p.seed);
    const onLine = p.replay?.onLine;
    if (onLine !== undefined) writer.onAppend((m) => onLine(m));
    p.closeDangling?.(fold);
    const engine = new ContextEngine({
      llm,
      env,
      trace: writer,
      fold,
      maxTurns: state.config.max_turns,
      policy: createCommandPolicy(config.command_policy),
      compaction: {
        maxContextLength: state.config.compaction.max_context_length,
        maxSessionTurns: state.config.compaction.max_session_turns,
        mode: state.config.compaction.mode,
        prompt: state.config.compaction.prompt,
      },
      sleep: p.replay !== undefined ? noWait : this.#options.sleep,
    });
    built = new Session({
      meta,
      id: sessionId,
      paths: this.paths,
      workspace: meta.workspace,
      provider: meta.provider,
      modelId: meta.model_id,
      systemPrompt: meta.system_prompt,
      thinkingLevel: p.thinkingLevel,
      scratchpadDir,
      endpoint,
      engine,
      llm,
      env,
      writer,
      fileLines,
      resumed: p.resumed,
      approvalMode: p.approvalMode,
      sleep: p.replay !== undefined ? noWait : this.#options.sleep,
      lease: p.lease,
    });
    return built;
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

/**
 * The file resume replays. Normally the newest; but a crash right after a compaction rotated
 * the trace can leave the newest file empty or holding only a torn header: with no readable
 * record it is skipped (the previous file ends in the completed compaction, so the writer
 * rotates back into it). A newest file whose records lack their session_meta line borrows the
 * meta of an earlier file: a session's meta is the same in all of them.
 */
function pickResumeFile(files: { file: string; index: number }[], options: { fold: boolean; snapshot?: SnapshotThresholds | undefined }): {
  messages: OmniMessage[];
  index: number;
  meta: SessionMetaPayload | undefined;
  /** With `fold`: the fold of `messages`, read from the file's resume snapshot on; undefined when survivors were placed into it. */
  folded: SessionState | undefined;
  /** With `folded`: the file's bytes through its last newline and their lines, as read (the writer need not count them again). */
  extent: { bytes: number; lines: number } | undefined;
  /** With `folded`: the line number of each of `messages` (what the session keeps to snapshot the file when it ends). */
  lines: readonly number[] | undefined;
  /** With `folded`: the lines the file's resume snapshot covers after the read (0: none). */
  snapshotLines: number;
} {
  const metaOf = (messages: readonly OmniMessage[]): SessionMetaPayload | undefined => {
    for (const m of messages) if (m.type === "session_meta") return m.payload;
    return undefined;
  };
  // Without `fold` (a caller after the file's index and meta only) the file is read as it is.
  // Otherwise: a rotated file's context opens with what the Human wrote before the compaction,
  // which the previous file holds, so such a file is folded with them, from its start; any
  // other file is read and folded from its resume snapshot (readForResume). A file with no
  // readable record of its own is passed over (see above), whatever survivors it would get.
  const candidate = (at: number): { messages: OmniMessage[]; folded: SessionState | undefined; extent: { bytes: number; lines: number } | undefined; lines: readonly number[] | undefined; snapshotLines: number; empty: boolean } => {
    const survivors = options.fold && at > 0 ? survivorsOfClosedFile(files[at - 1]!.file) : [];
    if (!options.fold || survivors.length > 0) {
      const own = readTraceFile(files[at]!.file).messages;
      return { messages: withSurvivors(own, survivors), folded: undefined, extent: undefined, lines: undefined, snapshotLines: 0, empty: own.length === 0 };
    }
    // The newer snapshot this read may call for is written at the session's first commit
    // point (FileLines.afterCommit), after its first request has gone out, not here.
    const read = readForResume(files[at]!.file, { ...options.snapshot, writeSnapshot: false });
    const snapshotLines = read.fromSnapshot;
    return { messages: read.content.messages, folded: read.state, extent: read.extent, lines: read.content.lines, snapshotLines, empty: read.content.messages.length === 0 };
  };
  let at = files.length - 1;
  let picked = candidate(at);
  while (at > 0 && picked.empty) picked = candidate(--at);
  let meta = metaOf(picked.messages);
  for (let i = at - 1; i >= 0 && meta === undefined; i--) meta = metaOf(readTraceFile(files[i]!.file).messages);
  return { messages: picked.messages, index: files[at]!.index, meta, folded: picked.folded, extent: picked.extent, lines: picked.lines, snapshotLines: picked.snapshotLines };
}

/** Open (and on first use, initialise) an agent under the data root. */
export async function createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
  const root = resolveRoot(options.root, options.env ?? process.env);
  const paths = agentPaths(root, options.projectId ?? DEFAULT_PROJECT, options.agentId ?? DEFAULT_AGENT);
  await ensureAgentState(paths);
  return new Agent(paths, options);
}

export function isThinkingLevel(v: string): v is ThinkingLevel {
  return (THINKING_LEVELS as readonly string[]).includes(v);
}

/**
 * Commands run in a login shell each time (the old way) when system_config says
 * `tools.exec.loginShell: true` or the harness runs with PENGUIN_EXEC_LOGIN_SHELL=1.
 */
function wantsLoginShell(config: AgentState["config"], env: NodeJS.ProcessEnv): boolean {
  return config.tools.exec?.loginShell === true || env.PENGUIN_EXEC_LOGIN_SHELL === "1";
}
