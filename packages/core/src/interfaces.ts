/**
 * The engine's three boundaries, as types.
 *
 * - Human: not an interface but `session.run(messages, {approve, signal})`; its approval
 *   callback is `ApproveFn` below.
 * - LLM: `LLMInterface`, stateless: each request gets the committed context from the session's
 *   live fold (`history`) and the new messages on top of it.
 * - Environment: `EnvironmentInterface`, runs approved tool calls and streams their output.
 *
 * Both LLM and Environment turn every failure into a value (a stop reason, a `failed` tool
 * output); nothing they do may throw into the engine once a call has started.
 */
import type {
  OmniMessage,
  StopReason,
  TokenCounts,
  ToolCallPayload,
  ToolDefinition,
} from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { Sequence } from "@penguin/trace";
import type { ProcessInfo } from "./environment/commands/process-table.js";
import type { SubagentInfo } from "./subagents/subagent-info.js";

// ---------------------------------------------------------------------------------------------
// Human side: approvals
// ---------------------------------------------------------------------------------------------

/** `forbidden` comes only from the command policy, which wraps the host's function. */
export type ApprovalResult = "allow" | "deny" | "forbidden";

/**
 * Asked once per complete tool call, one call at a time, in call order. A throw or a
 * rejected promise counts as `deny`. The signal aborts when the run is aborted; a pending
 * approval should then settle (any answer is ignored and the call is not run).
 */
export type ApproveFn = (toolCall: ToolCallPayload, ctx: ApprovalContext) => Promise<ApprovalAnswer>;

/**
 * What a host may answer: a plain result, or one with more said: allow and keep allowing this
 * tool (a shell tool: this command prefix) for the rest of the session (recorded as an
 * `approval_rule` event), or deny with a note the model receives in the call's output.
 */
export type ApprovalAnswer =
  | ApprovalResult
  | { readonly decision: "allow"; readonly forSession: { readonly commandPrefix?: string | undefined } }
  | { readonly decision: "deny"; readonly note: string };

export interface ApprovalContext {
  signal?: AbortSignal;
  /**
   * Set when the call comes from a child session: the chain of child session ids, outermost
   * first, as on the messages it forwards. Tool-call ids are unique per session only, so a
   * host keying pending approvals must key on origin + id.
   */
  origin?: string[];
}

/**
 * The command policy, as the engine sees it: the rule a tool call breaks, or undefined. It
 * runs before the host is asked, under every approval mode; a hit is recorded as the
 * decision `forbidden` with the rule's name, and the host's ApproveFn is never called.
 */
export type PolicyCheck = (toolCall: ToolCallPayload) => { rule: string; description?: string } | undefined;

// ---------------------------------------------------------------------------------------------
// LLM side
// ---------------------------------------------------------------------------------------------

/** How a request ended. `permanent` means retrying the same request cannot help. */
export interface LLMOutcome {
  status: StopReason;
  errorMessage?: string;
  permanent?: boolean;
  /** The endpoint's settings are wrong (base URL, host, path): permanent; fix the model entry. */
  configuration?: boolean;
  /** A wait the provider asked for (429 Retry-After); the engine waits at least this long. */
  retryAfterMs?: number;
}

export interface StreamGenerateInput {
  /**
   * The committed context the request continues, oldest first: the session fold's history
   * (`SessionState.history`), shared, never copied by the engine. Only complete model
   * messages. Read it with `mapToArray` (no cache is left on the fold's nodes).
   */
  history: Sequence<OmniMessage>;
  /** What the request sends on top of `history`: carry-over, the new input, tool outputs. */
  newMessages: OmniMessage[];
  signal?: AbortSignal;
  thinkingLevel?: ThinkingLevel;
  /**
   * Default true. False marks a request whose input and answer never join the context, even
   * when it completes (compaction asks for a summary this way, reusing the cached prefix).
   */
  commit?: boolean;
}

/**
 * A model, without a context of its own.
 *
 * - `streamGenerate` sends `history` + `newMessages`, yields the response as OmniMessages
 *   (partials, then each complete message right after its stop) and returns the outcome. It
 *   never throws.
 * - It keeps no history: what a completed request commits becomes context only by being
 *   recorded (the fold's `request_end` rule), so resume, compaction, forks and time travel
 *   have one copy of the context to agree with.
 * - Token usage of a completed request is read from `lastUsage` after the generator returns.
 */
export interface LLMInterface {
  streamGenerate(input: StreamGenerateInput): AsyncGenerator<OmniMessage, LLMOutcome>;
  /** The tool list is known only after discovery (MCP); the engine sets it before the first request. */
  setTools?(tools: ToolDefinition[]): void;
  /** Usage of the last completed request, if the provider reported one. */
  readonly lastUsage: TokenCounts | undefined;
  /** The model's context window in tokens, or "unknown". */
  readonly contextWindow: number | "unknown";
}

// ---------------------------------------------------------------------------------------------
// Environment side
// ---------------------------------------------------------------------------------------------

/** `r` tools only read; `read-only` approval mode allows them without asking. */
export type ToolPermission = "r" | "rw";

export interface ExecuteToolInput {
  toolCall: ToolCallPayload;
  signal?: AbortSignal;
  /** For tools that run other agents (subagents inherit the parent's approvals). */
  approve?: ApproveFn;
}

/**
 * Where tools run.
 *
 * - `executeTool` yields `partial_tool_call_output` fragments and ends with exactly one
 *   complete `tool_call_output` for the call. It never throws: errors, timeouts and
 *   interrupts come back as an output with `stop_reason` `failed`, `timeout` or `aborted`.
 * - `connect` (optional) performs lazy discovery (MCP servers) and yields its events
 *   (`mcp_connect_begin`, `mcp_connect_end`); the engine calls it once, before the first
 *   request, then reads `listTools`.
 * - `dispose` stops every process the environment started.
 */
export interface EnvironmentInterface {
  connect?(signal?: AbortSignal): AsyncGenerator<OmniMessage, void>;
  listTools(): ToolDefinition[];
  toolPermission(name: string): ToolPermission;
  executeTool(input: ExecuteToolInput): AsyncGenerator<OmniMessage, void>;
  /**
   * A hint that `call` was allowed and is about to run (its workspace checkpoint comes
   * first): slow set-up it needs may start now, in parallel (the session shell's capture for
   * a command). Must return at once and never throw; `executeTool` still does all the work.
   */
  prepareTool?(call: ToolCallPayload): void;
  /**
   * Texts to deliver to the model at the next turn boundary (e.g. `[background_task_done]`
   * notices of background commands); returned once, then cleared.
   */
  drainNotices?(): string[];
  /** Background commands, for hosts (the server's process list). */
  listProcesses?(): ProcessInfo[];
  /** Child sessions, for hosts. */
  listSubagents?(): SubagentInfo[];
  dispose?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Subagents
// ---------------------------------------------------------------------------------------------

export interface SubagentSpawnOptions {
  agentId?: string;
  provider?: string;
  modelId?: string;
  thinkingLevel?: ThinkingLevel;
}

export interface SubagentRunInput {
  prompt: string;
  signal?: AbortSignal;
  approve?: ApproveFn;
}

/**
 * A child session. Its messages stream without `origin`; the parent's tool adds the hop. Its
 * first task's stream starts with the child's `session_meta`.
 */
export interface SubagentHandle {
  readonly sessionId: string;
  /** The child's model pair, so a host can price the child's token usage. */
  readonly provider?: string;
  readonly modelId?: string;
  /** One task: ends after the child's last message of it (an `abort` event if stopped). */
  run(input: SubagentRunInput): AsyncGenerator<OmniMessage, void>;
  /** Steering text for the running task; false when none runs (or steering is unsupported). */
  steer?(text: string): boolean;
  /** Stops the child's task and every process it started. */
  dispose(): Promise<void>;
}

/** Spawns child sessions in the same workspace, each with its own Trace. Depth is capped at 1. */
export interface SubagentRunner {
  spawn(options: SubagentSpawnOptions): Promise<SubagentHandle>;
}
