/**
 * OmniMessage: the one message shape PenguinHarness speaks everywhere.
 *
 * The same envelope is the SDK's output (`session.run`), a Trace line, and an SSE event.
 * An envelope is `{timestamp, type, payload, origin?}`, and `type` decides the payload family:
 *   - `session_meta`: the invariants of one model context (one per Trace file);
 *   - `model_msg`:    what the model sees or says, complete or as a streaming `partial_*`;
 *   - `event_msg`:    control and accounting events around the messages.
 *
 * Rules kept by producers (and checked by our tests):
 *   - A Trace records `session_meta`, complete `model_msg` and every `event_msg`; never a
 *     `partial_*`, never a message carrying `origin` (those belong to the child's own Trace).
 *   - Partials follow start → delta* → stop, and the complete message follows the stop at
 *     once; the concatenated deltas equal the complete message.
 *   - `fidelity` is opaque: whatever a provider needs back, stored and re-sent byte-exact.
 *
 * The envelope type and its payload are correlated through `PayloadByType`, so narrowing on
 * `m.type` narrows `m.payload` too, and `m.payload.type` narrows further without casts.
 */

/** The three envelope families. */
export type OmniMessageType = "session_meta" | "model_msg" | "event_msg";

/** Who a model message belongs to in the conversation. */
export type Role = "user" | "assistant";

/**
 * Why a message, a request or a tool call ended. Six values and no others:
 * - `completed`: finished normally;
 * - `failed`: a provider or tool failure (a tool's `failed` output is fed back to the model);
 * - `aborted`: the user or the harness cancelled it;
 * - `timeout`: the request or the stream went over its time;
 * - `malformed`: the provider's reply could not be parsed or ended early;
 * - `auth`: the provider rejected the credentials; no retry can fix this.
 */
export type StopReason = "completed" | "failed" | "aborted" | "timeout" | "malformed" | "auth";
export const STOP_REASONS: readonly StopReason[] = [
  "completed",
  "failed",
  "aborted",
  "timeout",
  "malformed",
  "auth",
];

/** The phase of a streaming fragment. */
export type StreamEventType = "start" | "delta" | "stop";

/**
 * Provider fidelity: wire-level data a provider needs back when the history is replayed
 * (Anthropic thinking signatures, Responses encrypted reasoning items, Gemini thought
 * signatures, the reasoning field name of a chat endpoint). Opaque to everything but the
 * adapter that produced it; stored in the Trace as-is and re-sent unchanged.
 */
export type Fidelity = Record<string, unknown>;

/** Token counts of one request, or summed over a session. `total` is the sum of the other three. */
export interface TokenCounts {
  /** Prompt tokens served from the provider's cache. */
  cache_read: number;
  /** Prompt tokens not served from cache (processed, and possibly written to the cache). */
  cache_write: number;
  /** Generated tokens, thinking included. */
  output: number;
  total: number;
}

/** A tool as the model sees it: JSON-Schema parameters. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// session_meta
// ---------------------------------------------------------------------------------------------

/**
 * The invariants of one model context, first line of every Trace file. Per-turn settings
 * (thinking level) and the tool list (known only after MCP discovery) are not here.
 */
export interface SessionMetaPayload {
  session_id: string;
  provider: string;
  model_id: string;
  model_context_window: number | "unknown";
  /** The system prompt as sent, placeholders already expanded. */
  system_prompt: string;
  /** Absolute path of the agent's `agent_state/` directory. */
  agent_state: string;
  /** Absolute path of the workspace. */
  workspace: string;
  /** Absent for sessions a user started; `replay` for a re-execution of a recorded session. */
  source?: "subagent" | "schedule" | "replay";
  /** With `source: "replay"`: the id of the recorded session this one re-executes. */
  replay_of?: string;
}

// ---------------------------------------------------------------------------------------------
// model_msg: complete messages
// ---------------------------------------------------------------------------------------------

/** Who wrote a user-role text when it was not the human: a parent agent, the harness, the server. */
export type TextSender = "user" | "parent_agent" | "harness" | "server";

export interface TextPayload {
  type: "text";
  role: Role;
  text: string;
  /** Absent means the human typed it (or, for assistant texts, the model wrote it). */
  sender?: TextSender;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}

export interface ThinkingPayload {
  type: "thinking";
  role: "assistant";
  thinking: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}

/** Thinking delivered as binary data (base64), e.g. an image the model reasoned with. */
export interface InlineThinkingPayload {
  type: "inline_thinking";
  role: "assistant";
  data: string;
  mime_type: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}

export interface ToolCallPayload {
  type: "tool_call";
  role: "assistant";
  name: string;
  /** The arguments as a JSON string, exactly as the model produced them. */
  arguments: string;
  tool_call_id: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}

export interface ToolCallOutputPayload {
  type: "tool_call_output";
  role: "user";
  output: string;
  /** Images returned by the tool, as `data:<mime>;base64,…` URLs. */
  images?: string[];
  tool_call_id: string;
  /** `failed` outputs are still fed back to the model; `aborted` marks denials and interrupts. */
  stop_reason?: StopReason;
}

export interface ImageUrlPayload {
  type: "image_url";
  role: "user";
  /** A web URL or a data URL. */
  image_url: string;
  stop_reason?: StopReason;
}

export interface InlineDataPayload {
  type: "inline_data";
  role: Role;
  data: string;
  mime_type: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}

/** The seven complete model messages. */
export type CompleteModelPayload =
  | TextPayload
  | ThinkingPayload
  | InlineThinkingPayload
  | ToolCallPayload
  | ToolCallOutputPayload
  | ImageUrlPayload
  | InlineDataPayload;

export type CompleteModelType = CompleteModelPayload["type"];

// ---------------------------------------------------------------------------------------------
// model_msg: streaming partials
// ---------------------------------------------------------------------------------------------

export interface PartialTextPayload {
  type: "partial_text";
  role: "assistant";
  event_type: StreamEventType;
  text: string;
  stop_reason?: StopReason;
}

export interface PartialThinkingPayload {
  type: "partial_thinking";
  role: "assistant";
  event_type: StreamEventType;
  thinking: string;
  stop_reason?: StopReason;
}

export interface PartialToolCallPayload {
  type: "partial_tool_call";
  role: "assistant";
  event_type: StreamEventType;
  name: string;
  /** A fragment of the arguments JSON. */
  arguments: string;
  tool_call_id: string;
  stop_reason?: StopReason;
}

export interface PartialToolCallOutputPayload {
  type: "partial_tool_call_output";
  role: "user";
  event_type: StreamEventType;
  output: string;
  /** Images are never split: they arrive whole, in one delta. */
  images?: string[];
  tool_call_id: string;
  stop_reason?: StopReason;
}

/** The four streaming fragments. */
export type PartialPayload =
  | PartialTextPayload
  | PartialThinkingPayload
  | PartialToolCallPayload
  | PartialToolCallOutputPayload;

export type PartialType = PartialPayload["type"];

export type ModelPayload = CompleteModelPayload | PartialPayload;

// ---------------------------------------------------------------------------------------------
// event_msg
// ---------------------------------------------------------------------------------------------

/** Opens one LLM request. Always paired with a `request_end`. */
export interface RequestBeginPayload {
  type: "request_begin";
}

/**
 * Retry and failure detail, shared by `request_end` and `compaction_end`. Named
 * `error_message` because "message" means an OmniMessage in this protocol.
 */
export interface RetryDetail {
  /** Present on non-completed statuses: what went wrong, never containing a secret. */
  error_message?: string;
  /** 1-based attempt number; absent on a clean first try. */
  attempt?: number;
  /** Present only when the engine will retry: the wait before the next attempt. */
  retry_in_ms?: number;
}

/** Closes one LLM request. `status: "completed"` means the turn is committed. */
export interface RequestEndPayload extends RetryDetail {
  type: "request_end";
  status: StopReason;
}

/** Usage after a completed request: `request` for this one, `session` summed so far. */
export interface TokenUsagePayload {
  type: "token_usage";
  session: TokenCounts;
  request: TokenCounts;
}

/** `forbidden` is a veto by the command policy: the host was never asked. */
export type ApprovalDecision = "allow" | "deny" | "forbidden";

export interface ApprovalDecisionPayload {
  type: "approval_decision";
  decision: ApprovalDecision;
  tool_call_id: string;
  /** The command-policy rule that vetoed the call, when `decision` is `forbidden`. */
  policy_rule?: string;
}

/** The last message of an interrupted run. */
export interface AbortPayload {
  type: "abort";
  reason?: string;
}

export type CompactionReason = "context" | "turns" | "manual";
export type CompactionMode = "summarize" | "discard";

export interface CompactionBeginPayload {
  type: "compaction_begin";
  reason: CompactionReason;
  mode: CompactionMode;
  /** The last request's total tokens. */
  context: number;
  /** Committed turns in the session so far. */
  turns: number;
}

export interface CompactionEndPayload extends RetryDetail {
  type: "compaction_end";
  reason: CompactionReason;
  mode: CompactionMode;
  /** Anything but `completed` means the old context was kept. */
  status: StopReason;
}

/** Written to the parent Trace where a child session was spawned; never streamed. */
export interface SubagentPayload {
  type: "subagent";
  session_id: string;
}

/** The tool set of this model context, once known (after MCP discovery). */
export interface ToolListReadyPayload {
  type: "tool_list_ready";
  tools: ToolDefinition[];
}

export interface McpConnectBeginPayload {
  type: "mcp_connect_begin";
  servers: string[];
}

export interface McpServerResult {
  server: string;
  transport: "stdio" | "http" | "sse";
  status: "connected" | "failed";
  duration_ms: number;
  tools?: string[];
  error?: string;
}

export interface McpConnectEndPayload {
  type: "mcp_connect_end";
  status: StopReason;
  results: McpServerResult[];
}

export type GoalOutcome = "complete" | "blocked" | "budget_limited" | "aborted";

export interface GoalFinishedPayload {
  type: "goal_finished";
  outcome: GoalOutcome;
  rounds: number;
  tokens_used: number;
}

/**
 * First event of a forked session, after its session_meta: the session it was forked from
 * and the position (`NNN:LLLLLL`, file index and line) of the last record it took over.
 */
export interface ForkedFromPayload {
  type: "forked_from";
  session_id: string;
  at: string;
}

/** The thirteen events. */
export type EventPayload =
  | RequestBeginPayload
  | RequestEndPayload
  | TokenUsagePayload
  | ApprovalDecisionPayload
  | AbortPayload
  | CompactionBeginPayload
  | CompactionEndPayload
  | SubagentPayload
  | ToolListReadyPayload
  | McpConnectBeginPayload
  | McpConnectEndPayload
  | GoalFinishedPayload
  | ForkedFromPayload;

export type EventType = EventPayload["type"];

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

export interface PayloadByType {
  session_meta: SessionMetaPayload;
  model_msg: ModelPayload;
  event_msg: EventPayload;
}

/**
 * The envelope. `origin` is the chain of child session ids a forwarded message came
 * through, outermost first; absent for the main session's own messages (never empty).
 */
export type OmniMessage<K extends OmniMessageType = OmniMessageType> = {
  [T in K]: {
    timestamp: string;
    type: T;
    payload: PayloadByType[T];
    origin?: string[];
  };
}[K];

/** Any tagged payload (model messages and events; session_meta has no tag). */
export type TaggedPayload = ModelPayload | EventPayload;

/** The payload type whose `type` tag is `T`. */
export type PayloadOf<T extends TaggedPayload["type"]> = Extract<TaggedPayload, { type: T }>;
