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

import type * as Schema from "effect/Schema";
import type * as S from "./schema.js";

type T<X extends Schema.Schema.Any> = Schema.Schema.Type<X>;

/** The three envelope families. */
export type OmniMessageType = T<typeof S.OmniMessageTypeSchema>;

/** Who a model message belongs to in the conversation. */
export type Role = T<typeof S.RoleSchema>;

/**
 * Why a message, a request or a tool call ended. Six values and no others:
 * - `completed`: finished normally;
 * - `failed`: a provider or tool failure (a tool's `failed` output is fed back to the model);
 * - `aborted`: the user or the harness cancelled it;
 * - `timeout`: the request or the stream went over its time;
 * - `malformed`: the provider's reply could not be parsed or ended early;
 * - `auth`: the provider rejected the credentials; no retry can fix this.
 */
export type StopReason = T<typeof S.StopReasonSchema>;
export const STOP_REASONS: readonly StopReason[] = ["completed", "failed", "aborted", "timeout", "malformed", "auth"];

/** The phase of a streaming fragment. */
export type StreamEventType = T<typeof S.StreamEventTypeSchema>;

/**
 * Provider fidelity: wire-level data a provider needs back when the history is replayed
 * (Anthropic thinking signatures, Responses encrypted reasoning items, Gemini thought
 * signatures, the reasoning field name of a chat endpoint). Opaque to everything but the
 * adapter that produced it; stored in the Trace as-is and re-sent unchanged.
 */
export type Fidelity = T<typeof S.FidelitySchema>;

/** Token counts of one request, or summed over a session. `total` is the sum of the other three. */
export type TokenCounts = T<typeof S.TokenCountsSchema>;

/** A tool as the model sees it: JSON-Schema parameters. */
export type ToolDefinition = T<typeof S.ToolDefinitionSchema>;

/**
 * The invariants of one model context, first line of every Trace file. Per-turn settings
 * (thinking level) and the tool list (known only after MCP discovery) are not here.
 */
export type SessionMetaPayload = T<typeof S.SessionMetaPayloadSchema>;
export type SessionClient = T<typeof S.SessionClientSchema>;

/** Who wrote a user-role text when it was not the human: a parent agent, the harness, the server. */
export type TextSender = T<typeof S.TextSenderSchema>;

// model_msg: complete messages. `tool_call.arguments` is the JSON string exactly as the model
// produced it; `tool_call_output.images` are `data:` URLs; a `failed` output is still fed back to
// the model and `aborted` marks denials and interrupts.
export type TextPayload = T<typeof S.TextPayloadSchema>;
export type ThinkingPayload = T<typeof S.ThinkingPayloadSchema>;
/** Thinking delivered as binary data (base64), e.g. an image the model reasoned with. */
export type InlineThinkingPayload = T<typeof S.InlineThinkingPayloadSchema>;
export type ToolCallPayload = T<typeof S.ToolCallPayloadSchema>;
export type ToolCallOutputPayload = T<typeof S.ToolCallOutputPayloadSchema>;
export type ImageUrlPayload = T<typeof S.ImageUrlPayloadSchema>;
export type InlineDataPayload = T<typeof S.InlineDataPayloadSchema>;

/** The seven complete model messages. */
export type CompleteModelPayload = T<typeof S.CompleteModelPayloadSchema>;
export type CompleteModelType = CompleteModelPayload["type"];

// model_msg: streaming partials (start → delta* → stop; images are never split).
export type PartialTextPayload = T<typeof S.PartialTextPayloadSchema>;
export type PartialThinkingPayload = T<typeof S.PartialThinkingPayloadSchema>;
export type PartialToolCallPayload = T<typeof S.PartialToolCallPayloadSchema>;
export type PartialToolCallOutputPayload = T<typeof S.PartialToolCallOutputPayloadSchema>;

/** The four streaming fragments. */
export type PartialPayload = T<typeof S.PartialPayloadSchema>;
export type PartialType = PartialPayload["type"];

export type ModelPayload = CompleteModelPayload | PartialPayload;

// event_msg

/** Opens one LLM request. Always paired with a `request_end`. */
export type RequestBeginPayload = T<typeof S.RequestBeginPayloadSchema>;

/**
 * Retry and failure detail, shared by `request_end` and `compaction_end`. Named
 * `error_message` because "message" means an OmniMessage in this protocol. `attempt` is
 * 1-based and absent on a clean first try; `retry_in_ms` is present only when the engine will
 * retry. An error message never contains a secret.
 */
export type RetryDetail = T<typeof S.RetryDetailSchema>;

/** Closes one LLM request. `status: "completed"` means the turn is committed. */
export type RequestEndPayload = T<typeof S.RequestEndPayloadSchema>;

/** Usage after a completed request: `request` for this one, `session` summed so far. */
export type TokenUsagePayload = T<typeof S.TokenUsagePayloadSchema>;

/** `forbidden` is a veto by the command policy: the host was never asked. */
export type ApprovalDecision = T<typeof S.ApprovalDecisionSchema>;
export type ApprovalDecisionPayload = T<typeof S.ApprovalDecisionPayloadSchema>;

/** The last message of an interrupted run. */
export type AbortPayload = T<typeof S.AbortPayloadSchema>;

export type CompactionReason = T<typeof S.CompactionReasonSchema>;
export type CompactionMode = T<typeof S.CompactionModeSchema>;
/** `context` is the last request's total tokens, `turns` the committed turns so far. */
export type CompactionBeginPayload = T<typeof S.CompactionBeginPayloadSchema>;
/** Anything but `completed` means the old context was kept. */
export type CompactionEndPayload = T<typeof S.CompactionEndPayloadSchema>;

/** Written to the parent Trace where a child session was spawned; never streamed. */
export type SubagentPayload = T<typeof S.SubagentPayloadSchema>;

/** The tool set of this model context, once known (after MCP discovery). */
export type ToolListReadyPayload = T<typeof S.ToolListReadyPayloadSchema>;
export type McpConnectBeginPayload = T<typeof S.McpConnectBeginPayloadSchema>;
export type McpServerResult = T<typeof S.McpServerResultSchema>;
export type McpConnectEndPayload = T<typeof S.McpConnectEndPayloadSchema>;

export type GoalOutcome = T<typeof S.GoalOutcomeSchema>;
export type GoalFinishedPayload = T<typeof S.GoalFinishedPayloadSchema>;

// Session facts recorded as events (see schema.ts for each one's meaning).
export type ApprovalRequestedPayload = T<typeof S.ApprovalRequestedPayloadSchema>;
export type ApprovalRulePayload = T<typeof S.ApprovalRulePayloadSchema>;
export type SteeringQueuedPayload = T<typeof S.SteeringQueuedPayloadSchema>;
export type SteeringRecalledPayload = T<typeof S.SteeringRecalledPayloadSchema>;
export type SettingsChangedPayload = T<typeof S.SettingsChangedPayloadSchema>;
export type SessionTitlePayload = T<typeof S.SessionTitlePayloadSchema>;
export type SessionArchivedPayload = T<typeof S.SessionArchivedPayloadSchema>;
export type GoalStartedPayload = T<typeof S.GoalStartedPayloadSchema>;
export type ForkedFromPayload = T<typeof S.ForkedFromPayloadSchema>;
export type HookRunPayload = T<typeof S.HookRunPayloadSchema>;
export type TraceContextPayload = T<typeof S.TraceContextPayloadSchema>;
export type WorkspaceCheckpointPayload = T<typeof S.WorkspaceCheckpointPayloadSchema>;

/** Every event payload. */
export type EventPayload = T<typeof S.EventPayloadSchema>;

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
