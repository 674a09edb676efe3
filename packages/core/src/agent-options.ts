/**
 * What an Agent and its sessions are given: createAgent's options, createSession's and
 * resumeSession's, and the parts a replay swaps in. A type-only module: agent.ts, the session
 * builder and the subagent runner (which creates child sessions) all name these shapes, and
 * none of them may import another's implementation for a type (that made import circles).
 */
import type { OmniMessage, SessionClient, SettingsChangedPayload } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { CheckpointSettings, SnapshotThresholds } from "@penguin/trace";
import type { SleepFn } from "./engine/reconnect.js";
import type { EnvironmentConfig } from "./environment/index.js";
import type { SandboxOptions } from "./environment/commands/sandbox.js";
import type { McpServerEntry } from "./environment/mcp/config.js";
import type { McpStdioPolicy } from "./environment/mcp/stdio-launch.js";
import type { EnvironmentInterface, LLMInterface, SubagentRunner } from "./interfaces.js";

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
  /**
   * Workspace checkpoints (issue 29): after every tool call that may change files the session
   * records the workspace's state in the agent's checkpoint store (`<agent>/checkpoints/`).
   * `ignore`: gitignore lines applied before the workspace's own (default `node_modules/`,
   * `.git/`); `maxFileBytes`: files above it are recorded by hash and size only (10 MiB).
   * `false` turns checkpoints off.
   */
  checkpoints?: false | CheckpointSettings;
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
   * The program creating the session (`cli`, `web`, `acp`…), recorded in its session_meta;
   * default: the source for a subagent's or a schedule's session, else `sdk`.
   */
  client?: SessionClient;
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
  /**
   * MCP servers for this session only (an editor's, say), started with the agent's own
   * `tools.mcpServers` the same way (stdio ones inside the session's sandbox). A name the agent's
   * config already uses is refused (`invalid_argument`). Not recorded: a runtime choice, as the sandbox.
   */
  mcpServers?: McpServerEntry[];
}

export interface ResumeSessionOptions {
  sessionId: string;
  /** As for createSession: the sandbox is a runtime choice, not part of the trace. */
  sandbox?: SandboxOptions;
  /** As for createSession: this session's own MCP servers, besides the agent's. */
  mcpServers?: McpServerEntry[];
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
  /** Take workspace checkpoints as a live session does (a replay that reruns its tools compares them). */
  checkpoints?: boolean;
}
