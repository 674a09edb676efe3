/**
 * Building a session from its parts: the agent state and project config read from the data
 * root (`assemble`), the session's confinement, its Environment, model adapter, trace writer,
 * live fold and engine (`buildSession`). createSession, resumeSession and replays each decide
 * the parts (a new meta, what the trace says, a recording) and end here, so the wiring of a
 * Session exists once. Module functions over `AgentParts`, what they need of their Agent, so
 * this file never imports agent.ts (which imports it).
 */
import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { settingsChanged, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import type { ModelEndpoint, ThinkingLevel } from "@penguin/models";
import { FileLines, initialSessionState, TraceWriter, type ReadFileLines, type SessionLease, type SessionState, type WorkspaceCheckpoints } from "@penguin/trace";
import type { CreateAgentOptions, ReplayParts } from "./agent-options.js";
import { ContextEngine } from "./engine/context-engine.js";
import { LiveFold } from "./engine/session-fold.js";
import { GatewayLLM } from "./llm/gateway-llm.js";
import { ToolCallIdAllocator } from "./llm/tool-call-ids.js";
import { visionDescriber } from "./llm/vision-describer.js";
import { createEnvironment, type EnvironmentConfig } from "./environment/index.js";
import type { CommandSandbox, SandboxOptions } from "./environment/commands/sandbox.js";
import { sessionBoundary, sessionCommandSandbox } from "./environment/commands/session-sandbox.js";
import { vaultSecretForms } from "./environment/redact.js";
import { mountTable, unconfinedTable } from "./environment/commands/mount-table.js";
import { instructionCandidates, instructionGrants, readProjectInstructions, type ProjectInstructions } from "./state/project-instructions.js";
import { parseMcpServers, type McpServerEntry } from "./environment/mcp/config.js";
import { loadMcpHub } from "./environment/mcp/load-hub.js";
import { createCommandPolicy } from "./approvals/command-policy.js";
import { PenguinError } from "./errors.js";
import { loadAgentState, type AgentState } from "./state/agent-state.js";
import type { SharedByContent } from "./state/shared-by-content.js";
import { newTmpWorkspaceName, sessionDate } from "./state/ids.js";
import { sessionScratchpad, traceFilePath, type AgentPaths } from "./state/paths.js";
import { checkpointHook } from "./engine/checkpoint-hook.js";
import { lastCheckpointTree, openCheckpoints } from "./trace/workspace-files.js";
import { readProjectConfig, type ProjectConfig } from "./state/project-config.js";
import { resolveModelEndpoint } from "./state/model-resolution.js";
import { Session } from "./session.js";
import { isThinkingLevel } from "./thinking-level.js";
import { whileHolding } from "./trace/session-lease.js";
import { createSubagentRunner, type ChildSessionFactory } from "./subagents/runner.js";
import { hasHooks, mergeHooks } from "./hooks/hook-config.js";
import { HookedEnvironment } from "./hooks/hooked-environment.js";
import { SessionHooks } from "./hooks/session-hooks.js";
import { autoPreCompact } from "./hooks/task-hooks.js";
import { loadWorkspaceHooks } from "./hooks/workspace-hooks.js";

/** What the session-building functions need of their Agent. */
export interface AgentParts {
  readonly paths: AgentPaths;
  readonly options: CreateAgentOptions;
  /** One copy of the agent state for every session while its files do not change (state/shared-by-content.ts). */
  readonly sharedState: SharedByContent<AgentState>;
  /** The agent a subagent runs as: this one, or another existing agent of the same project. */
  childAgent(agentId: string | undefined): Promise<ChildSessionFactory>;
  /** Takes a session's lease for this process (`session_busy` when another holder runs it). */
  hold(sessionId: string): SessionLease;
}

/** A session's boundary, and the sandbox its commands run in (the same description, or none). */
export interface SessionConfinement {
  commands: CommandSandbox | undefined;
  boundary: CommandSandbox | undefined;
}

/** What a child session is given: the parent's commands sandbox and file boundary, as options. */
function inheritedSandbox(commands: CommandSandbox | undefined, b: CommandSandbox): SandboxOptions {
  return { enabled: commands !== undefined, confineFiles: true, network: b.network, hide: b.hidden, privateHomes: b.privateHomes ?? [] };
}

/** A replay re-enacts recorded waits without sleeping: the waits are in the recording. */
const noWait = async (): Promise<void> => undefined;

export interface Assembled {
  state: AgentState;
  config: ProjectConfig;
  endpoint: ModelEndpoint;
}

/** The agent state (shared while its files do not change), the project config and the model endpoint a session runs with. */
export async function assemble(parts: AgentParts, ref: { provider?: string | undefined; modelId?: string | undefined }): Promise<Assembled> {
  const config = readProjectConfig(parts.paths.projectConfig);
  const endpoint = resolveModelEndpoint(config, ref, { env: parts.options.env ?? process.env, configFile: parts.paths.projectConfig });
  const state = parts.sharedState.share(await loadAgentState(parts.paths));
  return { state, config, endpoint };
}

/** A new session's workspace: `dir` when it exists (its real path), else a fresh `workspaces/tmp-<8hex>`. */
export function sessionWorkspace(parts: AgentParts, dir: string | undefined): { path: string; temporary: boolean } {
  if (dir !== undefined) {
    const abs = isAbsolute(dir) ? dir : resolve(dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      throw new PenguinError("workspace_not_found", `workspace ${abs} does not exist or is not a directory; create it first or omit it for a temporary workspace`);
    }
    return { path: realpathSync(abs), temporary: false };
  }
  const path = resolve(parts.paths.workspacesDir, newTmpWorkspaceName());
  mkdirSync(path, { recursive: true });
  return { path, temporary: true };
}

/**
 * What a session may touch (environment/commands/session-sandbox.ts): its commands see it when
 * they run in bwrap, and its file tools keep to it whenever there is one, with the commands in
 * bwrap or with `confineFiles` where they run without it.
 */
export function sessionConfinement(parts: AgentParts, requested: SandboxOptions | undefined, workspace: string, sessionId: string): SessionConfinement {
  const options = requested ?? parts.options.sandbox;
  if (options === undefined || !(options.enabled || options.confineFiles === true)) return { commands: undefined, boundary: undefined };
  const instructionFiles = instructionGrants(instructionCandidates(workspace, parts.paths.root), workspace, parts.paths.root);
  const place = { workspace, scratchpad: sessionScratchpad(parts.paths, sessionId), instructionFiles };
  const commands = sessionCommandSandbox(parts.paths, options, place, parts.options.bwrapPath);
  return { commands, boundary: commands ?? sessionBoundary(parts.paths, options, place, parts.options.bwrapPath) };
}

/**
 * The workspace's AGENTS.md/CLAUDE.md files (state/project-instructions.ts), read through the
 * mount table the session's file tools use, so the system prompt holds only what they could read.
 */
export function sessionInstructions(parts: AgentParts, confinement: SessionConfinement, workspace: string): ProjectInstructions {
  const boundary = confinement.boundary;
  const table = boundary === undefined ? unconfinedTable([]) : mountTable(boundary, process.env.PATH);
  return readProjectInstructions(instructionCandidates(workspace, parts.paths.root).files, table);
}

/** describe_image for a model without vision: the project's vision model, when one is set. */
function describer(parts: AgentParts, config: ProjectConfig, endpoint: ModelEndpoint): Pick<EnvironmentConfig, "describeImage"> {
  if (endpoint.vision === true || config.vision_model === undefined) return {};
  const ref = { provider: config.vision_model.provider, modelId: config.vision_model.model_id };
  try {
    const vision = resolveModelEndpoint(config, ref, { env: parts.options.env ?? process.env, configFile: parts.paths.projectConfig });
    return { describeImage: visionDescriber(vision, { fetch: parts.options.fetch }) };
  } catch {
    // A vision_model without an entry: describe_image explains that none is configured.
    return {};
  }
}

/** Everything a session is built from, decided by createSession, resumeSession or a replay. */
export interface BuildParams {
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
  /** MCP servers of this session only (createSession / resumeSession `mcpServers`), after the agent's. */
  sessionMcpServers?: readonly McpServerEntry[];
}

/** The agent's configured MCP servers, then the session's own; a session server may not reuse a configured name. */
function sessionMcpServerList(configured: McpServerEntry[], ofSession: readonly McpServerEntry[] | undefined): McpServerEntry[] {
  if (ofSession === undefined || ofSession.length === 0) return configured;
  const names = new Set(configured.map((s) => s.name));
  for (const server of ofSession) {
    if (names.has(server.name)) throw new PenguinError("invalid_argument", `MCP server "${server.name}" is already configured for this agent (tools.mcpServers in system_config.yaml): give the session's server another name`);
    names.add(server.name);
  }
  return [...configured, ...ofSession];
}

export async function buildSession(parts: AgentParts, p: BuildParams): Promise<Session> {
  const { meta, state, config, endpoint } = p;
  const sessionId = meta.session_id;
  const scratchpadDir = sessionScratchpad(parts.paths, sessionId);
  const mcpServers = sessionMcpServerList(parseMcpServers(state.config.tools.mcpServers, parts.paths.systemConfig), p.sessionMcpServers);
  let built: Session | undefined;
  const subagents =
    meta.source === "subagent"
      ? undefined
      : p.replay !== undefined
        ? p.replay.subagents
        : createSubagentRunner({
          workspaceDir: meta.workspace,
          ...(p.sandbox.boundary === undefined ? {} : { sandbox: inheritedSandbox(p.sandbox.commands, p.sandbox.boundary) }),
          agentFor: (agentId) => parts.childAgent(agentId),
          parent: () => ({ provider: meta.provider, modelId: meta.model_id, thinkingLevel: built?.thinkingLevel ?? p.thinkingLevel }),
        });
  const realEnv = createEnvironment({
    ...(subagents === undefined ? {} : { subagents }),
    workspaceDir: meta.workspace,
    scratchpadDir,
    vault: state.vault,
    loginShell: wantsLoginShell(state.config, parts.options.env ?? process.env),
    vision: endpoint.vision ?? false,
    builtinOverride: state.config.tools.builtin,
    extraTools: mcpServers.length > 0 ? await loadMcpHub(mcpServers, { cwd: meta.workspace, ...(p.sandbox.commands === undefined ? {} : { sandbox: p.sandbox.commands }), ...(parts.options.mcpStdioPolicy === undefined ? {} : { stdioPolicy: parts.options.mcpStdioPolicy }) }) : undefined,
    ...describer(parts, config, endpoint),
    ...parts.options.environment,
    ...(p.sandbox.commands === undefined ? {} : { sandbox: p.sandbox.commands }),
    ...(p.sandbox.boundary === undefined ? {} : { boundary: p.sandbox.boundary }),
    readOnlyForTools: [parts.paths.agentState],
    writableForTools: [parts.paths.memoryDir],
  });
  const hooks = sessionHooks(parts, p);
  const preCompact = hooks === undefined || p.replay !== undefined ? undefined : autoPreCompact(hooks);
  // Tool hooks sit on the real Environment: a replay with recorded tools answers before them.
  const hookedEnv = hooks === undefined ? realEnv : new HookedEnvironment(realEnv, hooks);
  const env = p.replay?.wrapEnvironment?.(hookedEnv) ?? hookedEnv;
  const llm = p.replay?.llm ?? new GatewayLLM({
    endpoint,
    systemPrompt: meta.system_prompt,
    tools: [],
    thinkingLevel: p.thinkingLevel,
    requestTimeoutMs: state.config.model.timeoutMs,
    ids: p.ids,
    fetch: parts.options.fetch,
  });
  const date = sessionDate(sessionId);
  const writer = new TraceWriter({
    fileFor: (index) => traceFilePath(parts.paths, date, sessionId, index),
    index: p.writerIndex,
    meta,
    existing: p.existing,
    toolsWritten: p.toolsWritten,
    ...(p.knownExtent === undefined ? {} : { knownExtent: p.knownExtent }),
    ...(p.opening === undefined ? {} : { opening: [p.opening] }),
  });
  // What the file's resume snapshot needs when the session ends (registered before anything is written).
  const fileLines = new FileLines(writer, p.existing ? p.readLines : "new-file", parts.options.resumeSnapshot);
  // The session's state: folded from every line the writer writes, from the seed on.
  const fold = new LiveFold(writer, p.seed);
  const onLine = p.replay?.onLine;
  if (onLine !== undefined) writer.onAppend((m) => onLine(m));
  p.closeDangling?.(fold);
  const checkpoints = sessionCheckpoints(parts, meta.workspace, sessionId, p);
  const checkpointing = checkpoints === undefined ? undefined : checkpointHook(checkpoints);
  const engine = new ContextEngine({
    llm,
    env,
    trace: writer,
    fold,
    ...(checkpointing === undefined ? {} : { checkpoints: checkpointing }),
    maxTurns: state.config.max_turns,
    policy: createCommandPolicy(config.command_policy),
    compaction: {
      maxContextLength: state.config.compaction.max_context_length,
      maxSessionTurns: state.config.compaction.max_session_turns,
      mode: state.config.compaction.mode,
      prompt: state.config.compaction.prompt,
    },
    sleep: p.replay !== undefined ? noWait : parts.options.sleep,
    // PreCompact before a compaction a trigger starts; a replay writes the recorded records back instead.
    ...(preCompact === undefined ? {} : { beforeAutoCompaction: preCompact }),
  });
  built = new Session({
    meta,
    id: sessionId,
    paths: parts.paths,
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
    sleep: p.replay !== undefined ? noWait : parts.options.sleep,
    lease: p.lease,
    checkpoints: checkpointing,
    // A replay writes the recorded task-hook records back instead of running the hooks.
    ...(hooks === undefined || p.replay !== undefined ? {} : { hooks }),
  });
  return built;
}

/**
 * Builds a session from a recording's invariants with a replay's parts swapped in. Used by
 * `replay()`; no model entry is needed (the model is the recording).
 */
export async function buildReplaySession(parts: AgentParts, meta: SessionMetaPayload, replay: ReplayParts, vision: boolean): Promise<Session> {
  const config = readProjectConfig(parts.paths.projectConfig);
  const state = await loadAgentState(parts.paths);
  const contextWindow = meta.model_context_window === "unknown" ? undefined : meta.model_context_window;
  const endpoint: ModelEndpoint = { provider: meta.provider, modelId: meta.model_id, clientType: "openai-chat", baseUrl: "replay:", vision, ...(contextWindow === undefined ? {} : { contextWindow }) };
  // The recording's starting settings are written again; from its baseline the engine then
  // records the same thinking-level changes the recording has (the replay passes each
  // task's level). A recording that never names a level gets no baseline: nothing changes.
  const opening = replay.startingSettings;
  const recordedLevel = replay.thinkingBaseline;
  const thinkingLevel = recordedLevel !== undefined && isThinkingLevel(recordedLevel) ? recordedLevel : (state.config.model.thinking_level ?? config.default_chat?.thinking_level ?? "medium");
  const seed: SessionState = recordedLevel === undefined ? initialSessionState : { ...initialSessionState, settings: { thinkingLevel: recordedLevel } };
  const lease = parts.hold(meta.session_id);
  return whileHolding(lease, () => buildSession(parts, {
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
    replay,
    sandbox: sessionConfinement(parts, undefined, meta.workspace, meta.session_id),
    ...(opening === undefined ? {} : { opening: settingsChanged(opening), approvalMode: opening.approval_mode }),
    lease,
  }));
}

/**
 * The session's hooks: system_config.yaml's, then the workspace's `.penguin/hooks.json` when the
 * user trusted it as it is (workspace-hooks.ts). Undefined when there are none.
 */
function sessionHooks(parts: AgentParts, p: BuildParams): SessionHooks | undefined {
  const workspace = loadWorkspaceHooks(parts.paths.root, p.meta.workspace);
  const config = mergeHooks(p.state.config.hooks, workspace.status === "trusted" ? workspace.config : undefined);
  if (!hasHooks(config)) return undefined;
  const sessionId = p.meta.session_id;
  return new SessionHooks({
    config,
    sessionId,
    transcriptPath: traceFilePath(parts.paths, sessionDate(sessionId), sessionId, p.writerIndex),
    workspace: p.meta.workspace,
    ...(p.sandbox.commands === undefined ? {} : { sandbox: p.sandbox.commands }),
    baseEnv: parts.options.env ?? process.env,
  });
}

/**
 * Commands run in a login shell each time (the old way) when system_config says
 * `tools.exec.loginShell: true` or the harness runs with PENGUIN_EXEC_LOGIN_SHELL=1.
 */
/**
 * The session's workspace checkpoints, unless turned off (or a replay that does not rerun its
 * tools). A resumed session continues from the last checkpoint its trace names.
 */
function sessionCheckpoints(parts: AgentParts, workspace: string, sessionId: string, p: BuildParams): WorkspaceCheckpoints | undefined {
  const settings = parts.options.checkpoints;
  if (settings === false || (p.replay !== undefined && p.replay.checkpoints !== true)) return undefined;
  // The vault's values (and their encoded forms) let the first checkpoint store files as they are:
  // a file holding one is sealed instead (the pack store's rule), so no value lands in plain text.
  const checkpoints = openCheckpoints(parts.paths, workspace, { ...settings, secrets: vaultSecretForms(p.state.vault) });
  const last = p.resumed ? lastCheckpointTree(parts.paths, sessionId) : undefined;
  if (last !== undefined) {
    try {
      checkpoints.seed(last);
    } catch {
      // A tree the store lacks (moved, pruned): the next checkpoint records the whole workspace again.
    }
  }
  return checkpoints;
}

function wantsLoginShell(config: AgentState["config"], env: NodeJS.ProcessEnv): boolean {
  return config.tools.exec?.loginShell === true || env.PENGUIN_EXEC_LOGIN_SHELL === "1";
}
