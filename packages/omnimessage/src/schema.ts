/**
 * The OmniMessage protocol as effect/Schema: every payload, the three envelope families and
 * the envelope itself. The TypeScript types in types.ts are derived from these schemas, so
 * the checked shape and the compiled shape cannot drift apart.
 *
 * Shaped for decoding speed and clear errors:
 * - every tagged payload puts its discriminator (`type`) first and carries an `identifier`
 *   annotation, so a union decode picks the member by tag and an error names the variant;
 * - structs are `mutable` and optional fields `exact`, so the derived types match what
 *   producers have always built (`{ sender?: TextSender }`, plain arrays, no readonly);
 * - decoders are built once at module load (`decodeEnvelope` below) and never per line; a
 *   check compiled from the same AST (structural-guard.ts) answers the common "this line is
 *   fine" without effect's general decoder, which runs only for a line the check declines;
 * - no schema here transforms (decoded type = encoded type), so a value that decodes is
 *   answered as the very object given: a newer writer's extra fields, the key order and the
 *   provider `fidelity` pass through byte-exact, and nothing is copied per line.
 *
 * Only `effect` is imported, which runs in the browser: the web app decodes SSE with it.
 */
// Submodule imports: the `effect` barrel loads every module of the library (about 0.4 s more
// start-up on a busy machine); these three are all the protocol needs.
import * as Either from "effect/Either";
import * as ParseResult from "effect/ParseResult";
import * as Schema from "effect/Schema";
import { compileStructuralGuard } from "./structural-guard.js";
import type { OmniMessage } from "./types.js";

const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true });
const mutableArray = <S extends Schema.Schema.Any>(s: S) => Schema.mutable(Schema.Array(s));

// ---------------------------------------------------------------------------------------------
// Shared vocabularies
// ---------------------------------------------------------------------------------------------

export const OmniMessageTypeSchema = Schema.Literal("session_meta", "model_msg", "event_msg");
export const RoleSchema = Schema.Literal("user", "assistant");
export const StopReasonSchema = Schema.Literal("completed", "failed", "aborted", "timeout", "malformed", "auth");
export const StreamEventTypeSchema = Schema.Literal("start", "delta", "stop");
export const FidelitySchema = Schema.mutable(Schema.Record({ key: Schema.String, value: Schema.Unknown }));
export const TextSenderSchema = Schema.Literal("user", "parent_agent", "harness", "server");

export const TokenCountsSchema = Schema.mutable(
  Schema.Struct({ cache_read: Schema.Number, cache_write: Schema.Number, output: Schema.Number, total: Schema.Number }),
).annotations({ identifier: "TokenCounts" });

export const ToolDefinitionSchema = Schema.mutable(
  Schema.Struct({
    name: Schema.String,
    description: Schema.String,
    parameters: optional(Schema.mutable(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  }),
).annotations({ identifier: "ToolDefinition" });

// ---------------------------------------------------------------------------------------------
// session_meta
// ---------------------------------------------------------------------------------------------

/** Who created a session (session_meta `client`). */
export const SessionClientSchema = Schema.Literal("cli", "web", "sdk", "acp", "schedule", "subagent").annotations({ identifier: "SessionClient" });

export const SessionMetaPayloadSchema = Schema.mutable(
  Schema.Struct({
    session_id: Schema.String,
    provider: Schema.String,
    model_id: Schema.String,
    model_context_window: Schema.Union(Schema.Number, Schema.Literal("unknown")),
    system_prompt: Schema.String,
    agent_state: Schema.String,
    workspace: Schema.String,
    /** Absent for sessions a user started; `replay` for a re-execution of a recorded session. */
    source: optional(Schema.Literal("subagent", "schedule", "replay")),
    /** With `source: "replay"`: the id of the recorded session this one re-executes. */
    replay_of: optional(Schema.String),
    /**
     * The program the session was created through: the CLI, the web dashboard (the server), the
     * SDK, an ACP client, a schedule, or a parent agent. Absent in traces written before it was
     * recorded.
     */
    client: optional(SessionClientSchema),
  }),
).annotations({ identifier: "SessionMetaPayload" });

// ---------------------------------------------------------------------------------------------
// model_msg: complete messages
// ---------------------------------------------------------------------------------------------

export const TextPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("text"),
    role: RoleSchema,
    text: Schema.String,
    sender: optional(TextSenderSchema),
    stop_reason: optional(StopReasonSchema),
    fidelity: optional(FidelitySchema),
  }),
).annotations({ identifier: "TextPayload" });

export const ThinkingPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("thinking"),
    role: Schema.Literal("assistant"),
    thinking: Schema.String,
    stop_reason: optional(StopReasonSchema),
    fidelity: optional(FidelitySchema),
  }),
).annotations({ identifier: "ThinkingPayload" });

export const InlineThinkingPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("inline_thinking"),
    role: Schema.Literal("assistant"),
    data: Schema.String,
    mime_type: Schema.String,
    stop_reason: optional(StopReasonSchema),
    fidelity: optional(FidelitySchema),
  }),
).annotations({ identifier: "InlineThinkingPayload" });

export const ToolCallPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("tool_call"),
    role: Schema.Literal("assistant"),
    name: Schema.String,
    arguments: Schema.String,
    tool_call_id: Schema.String,
    stop_reason: optional(StopReasonSchema),
    fidelity: optional(FidelitySchema),
  }),
).annotations({ identifier: "ToolCallPayload" });

export const ToolCallOutputPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("tool_call_output"),
    role: Schema.Literal("user"),
    output: Schema.String,
    images: optional(mutableArray(Schema.String)),
    tool_call_id: Schema.String,
    stop_reason: optional(StopReasonSchema),
  }),
).annotations({ identifier: "ToolCallOutputPayload" });

export const ImageUrlPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("image_url"),
    role: Schema.Literal("user"),
    image_url: Schema.String,
    stop_reason: optional(StopReasonSchema),
  }),
).annotations({ identifier: "ImageUrlPayload" });

export const InlineDataPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("inline_data"),
    role: RoleSchema,
    data: Schema.String,
    mime_type: Schema.String,
    stop_reason: optional(StopReasonSchema),
    fidelity: optional(FidelitySchema),
  }),
).annotations({ identifier: "InlineDataPayload" });

// ---------------------------------------------------------------------------------------------
// model_msg: streaming partials
// ---------------------------------------------------------------------------------------------

export const PartialTextPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("partial_text"),
    role: Schema.Literal("assistant"),
    event_type: StreamEventTypeSchema,
    text: Schema.String,
    stop_reason: optional(StopReasonSchema),
  }),
).annotations({ identifier: "PartialTextPayload" });

export const PartialThinkingPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("partial_thinking"),
    role: Schema.Literal("assistant"),
    event_type: StreamEventTypeSchema,
    thinking: Schema.String,
    stop_reason: optional(StopReasonSchema),
  }),
).annotations({ identifier: "PartialThinkingPayload" });

export const PartialToolCallPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("partial_tool_call"),
    role: Schema.Literal("assistant"),
    event_type: StreamEventTypeSchema,
    name: Schema.String,
    arguments: Schema.String,
    tool_call_id: Schema.String,
    stop_reason: optional(StopReasonSchema),
  }),
).annotations({ identifier: "PartialToolCallPayload" });

export const PartialToolCallOutputPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("partial_tool_call_output"),
    role: Schema.Literal("user"),
    event_type: StreamEventTypeSchema,
    output: Schema.String,
    images: optional(mutableArray(Schema.String)),
    tool_call_id: Schema.String,
    stop_reason: optional(StopReasonSchema),
  }),
).annotations({ identifier: "PartialToolCallOutputPayload" });

export const CompleteModelPayloadSchema = Schema.Union(
  TextPayloadSchema,
  ThinkingPayloadSchema,
  InlineThinkingPayloadSchema,
  ToolCallPayloadSchema,
  ToolCallOutputPayloadSchema,
  ImageUrlPayloadSchema,
  InlineDataPayloadSchema,
);

export const PartialPayloadSchema = Schema.Union(
  PartialTextPayloadSchema,
  PartialThinkingPayloadSchema,
  PartialToolCallPayloadSchema,
  PartialToolCallOutputPayloadSchema,
);

export const ModelPayloadSchema = Schema.Union(CompleteModelPayloadSchema, PartialPayloadSchema).annotations({
  identifier: "ModelPayload",
});

// ---------------------------------------------------------------------------------------------
// event_msg
// ---------------------------------------------------------------------------------------------

const retryDetailFields = {
  /** Present on non-completed statuses: what went wrong, never containing a secret. */
  error_message: optional(Schema.String),
  /** 1-based attempt number; absent on a clean first try. */
  attempt: optional(Schema.Number),
  /** Present only when the engine will retry: the wait before the next attempt. */
  retry_in_ms: optional(Schema.Number),
  /** With `retry_in_ms`: how many attempts the engine makes in all ("attempt 3 of 6"). */
  max_attempts: optional(Schema.Number),
  /** The failure is the endpoint's configuration (unparsable URL, unknown host, 404/501): never retried. */
  configuration: optional(Schema.Boolean),
};

export const RetryDetailSchema = Schema.mutable(Schema.Struct(retryDetailFields)).annotations({ identifier: "RetryDetail" });

export const RequestBeginPayloadSchema = Schema.mutable(Schema.Struct({ type: Schema.Literal("request_begin") })).annotations({
  identifier: "RequestBeginPayload",
});

export const RequestEndPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("request_end"), status: StopReasonSchema, ...retryDetailFields }),
).annotations({ identifier: "RequestEndPayload" });

export const TokenUsagePayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("token_usage"), session: TokenCountsSchema, request: TokenCountsSchema }),
).annotations({ identifier: "TokenUsagePayload" });

export const ApprovalDecisionSchema = Schema.Literal("allow", "deny", "forbidden");

export const ApprovalDecisionPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("approval_decision"),
    decision: ApprovalDecisionSchema,
    tool_call_id: Schema.String,
    policy_rule: optional(Schema.String),
  }),
).annotations({ identifier: "ApprovalDecisionPayload" });

export const AbortPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("abort"), reason: optional(Schema.String) }),
).annotations({ identifier: "AbortPayload" });

export const CompactionReasonSchema = Schema.Literal("context", "turns", "manual");
export const CompactionModeSchema = Schema.Literal("summarize", "discard");

export const CompactionBeginPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("compaction_begin"),
    reason: CompactionReasonSchema,
    mode: CompactionModeSchema,
    context: Schema.Number,
    turns: Schema.Number,
  }),
).annotations({ identifier: "CompactionBeginPayload" });

export const CompactionEndPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("compaction_end"),
    reason: CompactionReasonSchema,
    mode: CompactionModeSchema,
    status: StopReasonSchema,
    ...retryDetailFields,
  }),
).annotations({ identifier: "CompactionEndPayload" });

export const SubagentPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("subagent"), session_id: Schema.String }),
).annotations({ identifier: "SubagentPayload" });

export const ToolListReadyPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("tool_list_ready"), tools: mutableArray(ToolDefinitionSchema) }),
).annotations({ identifier: "ToolListReadyPayload" });

export const McpConnectBeginPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("mcp_connect_begin"), servers: mutableArray(Schema.String) }),
).annotations({ identifier: "McpConnectBeginPayload" });

export const McpServerResultSchema = Schema.mutable(
  Schema.Struct({
    server: Schema.String,
    transport: Schema.Literal("stdio", "http", "sse"),
    status: Schema.Literal("connected", "failed"),
    duration_ms: Schema.Number,
    tools: optional(mutableArray(Schema.String)),
    error: optional(Schema.String),
  }),
).annotations({ identifier: "McpServerResult" });

export const McpConnectEndPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("mcp_connect_end"), status: StopReasonSchema, results: mutableArray(McpServerResultSchema) }),
).annotations({ identifier: "McpConnectEndPayload" });

export const GoalOutcomeSchema = Schema.Literal("complete", "blocked", "budget_limited", "aborted");

export const GoalFinishedPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("goal_finished"), outcome: GoalOutcomeSchema, rounds: Schema.Number, tokens_used: Schema.Number }),
).annotations({ identifier: "GoalFinishedPayload" });

// --- session facts that used to live only in memory or in the server's database ---------------

/**
 * A tool call waits for the host's decision: written just before the host's approve function
 * is asked (the Human at a prompt, or the host's approval mode deciding at once).
 */
export const ApprovalRequestedPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("approval_requested"), tool_call_id: Schema.String, name: Schema.String }),
).annotations({ identifier: "ApprovalRequestedPayload" });

/**
 * The Human allowed a tool for the rest of the session when asked about one of its calls: later
 * calls of `tool` (for a shell tool, only commands that start with the words of
 * `command_prefix` and chain nothing else) run without asking. `tool_call_id` is the call the
 * answer was given to.
 */
export const ApprovalRulePayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("approval_rule"), tool: Schema.String, command_prefix: optional(Schema.String), tool_call_id: Schema.String }),
).annotations({ identifier: "ApprovalRulePayload" });

/** Steering text accepted for the running task, not yet delivered to the model. */
export const SteeringQueuedPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("steering_queued"), steering_id: Schema.String, text: Schema.String }),
).annotations({ identifier: "SteeringQueuedPayload" });

/** Queued steering taken back before delivery. */
export const SteeringRecalledPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("steering_recalled"), steering_id: Schema.String }),
).annotations({ identifier: "SteeringRecalledPayload" });

/**
 * A per-session setting changed. Only the fields that changed are present. Values are kept as
 * strings here: the vocabularies (approval modes, thinking levels) belong to core and models,
 * and an older reader must not reject a newer value. `sandbox_network` is a plain flag: whether
 * the session's sandboxed commands may use the network (the host decides who may allow it).
 */
export const SettingsChangedPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("settings_changed"),
    approval_mode: optional(Schema.String),
    thinking_level: optional(Schema.String),
    sandbox_network: optional(Schema.Boolean),
  }),
).annotations({ identifier: "SettingsChangedPayload" });

export const SessionTitlePayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("session_title"), title: Schema.String }),
).annotations({ identifier: "SessionTitlePayload" });

/** `archived: false` is an unarchive. */
export const SessionArchivedPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("session_archived"), archived: Schema.Boolean }),
).annotations({ identifier: "SessionArchivedPayload" });

/** A goal run starts; `budget` is in tokens, -1 for no limit. */
export const GoalStartedPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("goal_started"), objective: Schema.String, budget: Schema.Number }),
).annotations({ identifier: "GoalStartedPayload" });

/** First record of a forked session: where it was cut from (`at` is a position, `NNN:LLLLLL`). */
export const ForkedFromPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("forked_from"), session_id: Schema.String, at: Schema.String }),
).annotations({ identifier: "ForkedFromPayload" });

/**
 * A task queued behind the running one (a host's follow-up queue): what the person sent, as the
 * host received it, so the queue survives the host's restart. It runs when the session is idle.
 */
export const FollowupQueuedPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("followup_queued"),
    followup_id: Schema.String,
    input: mutableArray(Schema.Unknown),
    thinking_level: optional(Schema.String),
    /** Run as a goal with this token budget (-1 = unlimited). */
    goal_budget: optional(Schema.Number),
    /** The W3C traceparent the request came with: recorded as the task's trace_context when it starts. */
    traceparent: optional(Schema.String),
  }),
).annotations({ identifier: "FollowupQueuedPayload" });

/** A queued follow-up left the queue: it `started`, was `recalled` by a person, or an abort handed it back. */
export const FollowupDequeuedPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("followup_dequeued"), followup_id: Schema.String, reason: Schema.Literal("started", "recalled", "aborted") }),
).annotations({ identifier: "FollowupDequeuedPayload" });

/**
 * One run of a lifecycle hook (a user's command on SessionStart, UserPromptSubmit, PreToolUse,
 * PostToolUse, PreCompact, Stop or SubagentStop) and what the harness decided from it.
 * `outcome`: `ok` (exit 0), `blocked` (exit 2, or a JSON block/deny), `error` (another exit
 * code or a spawn failure; the action goes on), `timeout` (killed after its limit).
 * `decision` is the hook's word when it gave one (allow, deny, ask, block, approve);
 * `updated_input` the tool arguments it substituted (JSON text); `context` text it added for the
 * model. Replay re-emits these records with the recorded tool output instead of running hooks.
 */
export const HookRunPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("hook_run"),
    hook_event: Schema.String,
    command: Schema.String,
    outcome: Schema.Literal("ok", "blocked", "error", "timeout"),
    exit_code: optional(Schema.Number),
    tool_call_id: optional(Schema.String),
    tool_name: optional(Schema.String),
    decision: optional(Schema.String),
    reason: optional(Schema.String),
    updated_input: optional(Schema.String),
    context: optional(Schema.String),
  }),
).annotations({ identifier: "HookRunPayload" });

/**
 * The W3C `traceparent` a task arrived with (a server task request's header), recorded just
 * before the task: the OpenTelemetry projection makes that remote span the parent of the task's.
 */
export const TraceContextPayloadSchema = Schema.mutable(
  Schema.Struct({ type: Schema.Literal("trace_context"), traceparent: Schema.String }),
).annotations({ identifier: "TraceContextPayload" });

/**
 * The workspace's files after a tool call that may change them (or at a task's start, when
 * something changed outside the session): `tree` names a manifest in the agent's checkpoint
 * store (its blobs are durable before this line is written), `changed` the workspace paths
 * that differ from the previous checkpoint. Never shown to the model.
 */
export const WorkspaceCheckpointPayloadSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("workspace_checkpoint"),
    tree: Schema.String,
    changed: mutableArray(Schema.String),
    /** The tool call after which it was taken; absent for a task's start or a rewind's own. */
    tool_call_id: optional(Schema.String),
    /** Why it was taken when not after a tool call: `task_start`, `background_done`, `before_rewind`, `rewind`. */
    reason: optional(Schema.String),
  }),
).annotations({ identifier: "WorkspaceCheckpointPayload" });

export const EventPayloadSchema = Schema.Union(
  RequestBeginPayloadSchema,
  RequestEndPayloadSchema,
  TokenUsagePayloadSchema,
  ApprovalDecisionPayloadSchema,
  AbortPayloadSchema,
  CompactionBeginPayloadSchema,
  CompactionEndPayloadSchema,
  SubagentPayloadSchema,
  ToolListReadyPayloadSchema,
  McpConnectBeginPayloadSchema,
  McpConnectEndPayloadSchema,
  GoalFinishedPayloadSchema,
  ApprovalRequestedPayloadSchema,
  ApprovalRulePayloadSchema,
  SteeringQueuedPayloadSchema,
  SteeringRecalledPayloadSchema,
  SettingsChangedPayloadSchema,
  SessionTitlePayloadSchema,
  SessionArchivedPayloadSchema,
  GoalStartedPayloadSchema,
  ForkedFromPayloadSchema,
  FollowupQueuedPayloadSchema,
  FollowupDequeuedPayloadSchema,
  HookRunPayloadSchema,
  TraceContextPayloadSchema,
  WorkspaceCheckpointPayloadSchema,
).annotations({ identifier: "EventPayload" });

// ---------------------------------------------------------------------------------------------
// Envelopes
// ---------------------------------------------------------------------------------------------

const envelopeOf = <T extends "session_meta" | "model_msg" | "event_msg", P extends Schema.Schema.Any>(type: T, payload: P) =>
  Schema.mutable(
    Schema.Struct({
      type: Schema.Literal(type),
      timestamp: Schema.String,
      payload,
      origin: optional(mutableArray(Schema.String)),
    }),
  );

export const SessionMetaEnvelopeSchema = envelopeOf("session_meta", SessionMetaPayloadSchema).annotations({ identifier: "SessionMetaEnvelope" });
export const ModelEnvelopeSchema = envelopeOf("model_msg", ModelPayloadSchema).annotations({ identifier: "ModelEnvelope" });
export const EventEnvelopeSchema = envelopeOf("event_msg", EventPayloadSchema).annotations({ identifier: "EventEnvelope" });

export const OmniMessageSchema = Schema.Union(SessionMetaEnvelopeSchema, ModelEnvelopeSchema, EventEnvelopeSchema).annotations({
  identifier: "OmniMessage",
});

// ---------------------------------------------------------------------------------------------
// Decoders, built once
// ---------------------------------------------------------------------------------------------

const decodeEither = Schema.decodeUnknownEither(OmniMessageSchema, { errors: "first" });
/** The fast yes of the same schema (structural-guard.ts): `false` defers to `decodeEither`. */
const isEnvelope = compileStructuralGuard(OmniMessageSchema.ast);

/** The outcome of decoding one value: the envelope, or a message naming the field that is wrong. */
export type EnvelopeDecodeResult = { ok: true; message: Schema.Schema.Type<typeof OmniMessageSchema> } | { ok: false; error: string };

/**
 * Decode untrusted JSON (a parsed Trace line, an SSE data field, an HTTP body) as an envelope.
 * On failure the error names the path of the first bad field, e.g.
 * `["payload"]["status"]: Expected "completed" | … , actual "done"`.
 */
export function decodeEnvelope(value: unknown): EnvelopeDecodeResult {
  // Nearly every line passes the compiled check; only the others pay for the full decoder,
  // which accepts them after all or names the field that is wrong.
  if (isEnvelope(value)) return { ok: true, message: value as Schema.Schema.Type<typeof OmniMessageSchema> };
  const result = decodeEither(value);
  // The schemas are pure checks, so the input itself is the decoded envelope (see the header).
  if (Either.isRight(result)) return { ok: true, message: value as Schema.Schema.Type<typeof OmniMessageSchema> };
  return { ok: false, error: describeParseError(result.left) };
}

/**
 * Checks untrusted JSON against the protocol schema: the envelope, its family and every
 * payload field. Unknown extra fields are kept as opaque, so newer files stay readable.
 * Answers `undefined` instead of throwing; `decodeEnvelope` gives the reason when one is needed.
 */
export function parseEnvelope(value: unknown): OmniMessage | undefined {
  const result = decodeEnvelope(value);
  return result.ok ? (result.message as OmniMessage) : undefined;
}

/** One line per issue, each naming its path: short enough for a log line or an HTTP 400. */
export function describeParseError(error: ParseResult.ParseError): string {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error);
  return issues
    .map((issue) => {
      const path = issue.path.map((p) => `[${JSON.stringify(p)}]`).join("");
      return path === "" ? issue.message : `${path}: ${issue.message}`;
    })
    .join("; ");
}
