/**
 * Constructors for every envelope, so producers never hand-assemble `{timestamp, type, payload}`.
 *
 * Every builder takes an optional `at` (a Date or ISO string) for deterministic tests, and
 * stamps the current time otherwise. Optional payload fields are only set when given, so a
 * serialized message carries no `undefined` keys and Trace lines stay minimal.
 */
import { rawOutputJsonOf } from "./raw-output.js";
import type {
  AbortPayload,
  ApprovalDecision,
  CompactionMode,
  CompactionReason,
  EventPayload,
  Fidelity,
  GoalOutcome,
  McpServerResult,
  ModelPayload,
  OmniMessage,
  RetryDetail,
  SessionMetaPayload,
  StopReason,
  TextSender,
  TokenCounts,
  ToolDefinition,
} from "./types.js";

export interface BuildOptions {
  at?: Date | string;
  origin?: string[];
}

/**
 * The current time as an ISO string, formatted once per millisecond: a turn builds a dozen
 * envelopes within the same few milliseconds, and formatting a Date is most of a builder's cost.
 */
let stampedAt = Number.NaN;
let stampedIso = "";
function nowIso(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedIso = new Date(now).toISOString();
    stampedAt = now;
  }
  return stampedIso;
}

function stamp(at: Date | string | undefined): string {
  if (at === undefined) return nowIso();
  return typeof at === "string" ? at : at.toISOString();
}

/**
 * A copy of `o` without the keys whose value is `undefined`, so JSON output is minimal and
 * stable. Built by adding keys rather than deleting them: an object that had a key deleted
 * drops to V8's slow dictionary mode, and every envelope is read again by the live fold and
 * serialized by the trace writer.
 */
function definedFields<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}

function wrap<T extends OmniMessage["type"]>(type: T, payload: unknown, opts?: BuildOptions): OmniMessage<T> {
  const m = { timestamp: stamp(opts?.at), type, payload } as OmniMessage<T>;
  if (opts?.origin && opts.origin.length > 0) m.origin = [...opts.origin];
  return m;
}

export function modelMessage(payload: ModelPayload, opts?: BuildOptions): OmniMessage<"model_msg"> {
  return wrap("model_msg", definedFields(payload), opts);
}

/**
 * `modelMessage`, sharing `payload` instead of copying it when it holds no undefined field (a
 * payload read from a trace, or built here): a tool output moved into the next request's
 * context stays the object its trace line was read as, so what is kept beside it (its JSON
 * text, raw-output.ts) still applies. Payloads are never changed in place, so sharing is safe.
 */
export function modelMessageSharing(payload: ModelPayload, opts?: BuildOptions): OmniMessage<"model_msg"> {
  // A payload with kept JSON text was decoded from a trace line, so none of its fields is
  // undefined; not reading them leaves an output that is decoded on read as it is (raw-output.ts).
  if (rawOutputJsonOf(payload) !== undefined) return wrap("model_msg", payload, opts);
  for (const k of Object.keys(payload)) if ((payload as unknown as Record<string, unknown>)[k] === undefined) return modelMessage(payload, opts);
  return wrap("model_msg", payload, opts);
}

export function eventMessage(payload: EventPayload, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return wrap("event_msg", definedFields(payload), opts);
}

export function sessionMeta(payload: SessionMetaPayload, opts?: BuildOptions): OmniMessage<"session_meta"> {
  return wrap("session_meta", definedFields(payload), opts);
}

// --- model messages ---------------------------------------------------------------------------

export function userText(text: string, opts?: BuildOptions & { sender?: TextSender }): OmniMessage<"model_msg"> {
  return modelMessage({ type: "text", role: "user", text, sender: opts?.sender }, opts);
}

export function assistantText(
  text: string,
  opts?: BuildOptions & { fidelity?: Fidelity; stopReason?: StopReason },
): OmniMessage<"model_msg"> {
  return modelMessage(
    { type: "text", role: "assistant", text, fidelity: opts?.fidelity, stop_reason: opts?.stopReason },
    opts,
  );
}

export function thinking(
  text: string,
  opts?: BuildOptions & { fidelity?: Fidelity; stopReason?: StopReason },
): OmniMessage<"model_msg"> {
  return modelMessage(
    { type: "thinking", role: "assistant", thinking: text, fidelity: opts?.fidelity, stop_reason: opts?.stopReason },
    opts,
  );
}

export function toolCall(
  call: { name: string; arguments: string; tool_call_id: string; fidelity?: Fidelity },
  opts?: BuildOptions & { stopReason?: StopReason },
): OmniMessage<"model_msg"> {
  return modelMessage({ type: "tool_call", role: "assistant", ...call, stop_reason: opts?.stopReason }, opts);
}

export function toolCallOutput(
  out: { tool_call_id: string; output: string; images?: string[]; stop_reason?: StopReason },
  opts?: BuildOptions,
): OmniMessage<"model_msg"> {
  return modelMessage({ type: "tool_call_output", role: "user", ...out }, opts);
}

export function imageUrl(url: string, opts?: BuildOptions): OmniMessage<"model_msg"> {
  return modelMessage({ type: "image_url", role: "user", image_url: url }, opts);
}

// --- events -----------------------------------------------------------------------------------

export function requestBegin(opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "request_begin" }, opts);
}

export function requestEnd(status: StopReason, detail?: RetryDetail, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "request_end", status, ...detail }, opts);
}

export function tokenUsage(session: TokenCounts, request: TokenCounts, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "token_usage", session: { ...session }, request: { ...request } }, opts);
}

export function approvalDecision(
  decision: ApprovalDecision,
  toolCallId: string,
  opts?: BuildOptions & { policyRule?: string },
): OmniMessage<"event_msg"> {
  return eventMessage(
    { type: "approval_decision", decision, tool_call_id: toolCallId, policy_rule: opts?.policyRule },
    opts,
  );
}

export function abortEvent(reason?: string, opts?: BuildOptions): OmniMessage<"event_msg"> {
  const payload: AbortPayload = { type: "abort" };
  if (reason !== undefined) payload.reason = reason;
  return eventMessage(payload, opts);
}

export function compactionBegin(
  fields: { reason: CompactionReason; mode: CompactionMode; context: number; turns: number },
  opts?: BuildOptions,
): OmniMessage<"event_msg"> {
  return eventMessage({ type: "compaction_begin", ...fields }, opts);
}

export function compactionEnd(
  fields: { reason: CompactionReason; mode: CompactionMode; status: StopReason } & RetryDetail,
  opts?: BuildOptions,
): OmniMessage<"event_msg"> {
  return eventMessage({ type: "compaction_end", ...fields }, opts);
}

export function subagentEvent(sessionId: string, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "subagent", session_id: sessionId }, opts);
}

export function toolListReady(tools: ToolDefinition[], opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "tool_list_ready", tools: tools.map((t) => ({ ...t })) }, opts);
}

export function mcpConnectBegin(servers: string[], opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "mcp_connect_begin", servers: [...servers] }, opts);
}

export function mcpConnectEnd(
  status: StopReason,
  results: McpServerResult[],
  opts?: BuildOptions,
): OmniMessage<"event_msg"> {
  return eventMessage({ type: "mcp_connect_end", status, results }, opts);
}

export function goalFinished(
  fields: { outcome: GoalOutcome; rounds: number; tokens_used: number },
  opts?: BuildOptions,
): OmniMessage<"event_msg"> {
  return eventMessage({ type: "goal_finished", ...fields }, opts);
}

// --- session facts ------------------------------------------------------------------------------

export function approvalRequested(call: { tool_call_id: string; name: string }, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "approval_requested", tool_call_id: call.tool_call_id, name: call.name }, opts);
}

/** A session rule the Human chose when asked (see ApprovalRulePayloadSchema). */
export function approvalRule(rule: { tool: string; commandPrefix?: string | undefined; toolCallId: string }, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "approval_rule", tool: rule.tool, ...(rule.commandPrefix === undefined ? {} : { command_prefix: rule.commandPrefix }), tool_call_id: rule.toolCallId }, opts);
}

export function steeringQueued(steeringId: string, text: string, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "steering_queued", steering_id: steeringId, text }, opts);
}

export function steeringRecalled(steeringId: string, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "steering_recalled", steering_id: steeringId }, opts);
}

/** Only the settings given are recorded; at least one must be. */
export function settingsChanged(
  settings: { approval_mode?: string; thinking_level?: string; sandbox_network?: boolean },
  opts?: BuildOptions,
): OmniMessage<"event_msg"> {
  if (settings.approval_mode === undefined && settings.thinking_level === undefined && settings.sandbox_network === undefined) {
    throw new Error("settingsChanged needs approval_mode, thinking_level or sandbox_network");
  }
  return eventMessage(
    { type: "settings_changed", approval_mode: settings.approval_mode, thinking_level: settings.thinking_level, ...(settings.sandbox_network === undefined ? {} : { sandbox_network: settings.sandbox_network }) },
    opts,
  );
}

export function sessionTitle(title: string, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "session_title", title }, opts);
}

export function sessionArchived(archived: boolean, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "session_archived", archived }, opts);
}

/** `budget` in tokens, -1 for no limit. */
export function goalStarted(objective: string, budget: number, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "goal_started", objective, budget }, opts);
}

/** `at` is the source position in its public form (`NNN:LLLLLL`). */
export function forkedFrom(sessionId: string, at: string, opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "forked_from", session_id: sessionId, at }, opts);
}

/** A follow-up task queued by the host; `input` is what the person sent, as the host received it. */
export function followupQueued(
  fields: { followup_id: string; input: unknown[]; thinking_level?: string; goal_budget?: number; traceparent?: string },
  opts?: BuildOptions,
): OmniMessage<"event_msg"> {
  return eventMessage({ type: "followup_queued", ...fields }, opts);
}

export function followupDequeued(followupId: string, reason: "started" | "recalled" | "aborted", opts?: BuildOptions): OmniMessage<"event_msg"> {
  return eventMessage({ type: "followup_dequeued", followup_id: followupId, reason }, opts);
}

// --- origin -----------------------------------------------------------------------------------

/**
 * Forward a child session's message to the parent stream: prepend the child's id to the
 * origin chain (outermost first). Returns a new envelope; the input is not changed.
 */
export function withOrigin<M extends OmniMessage>(m: M, childSessionId: string): M {
  return { ...m, origin: [childSessionId, ...(m.origin ?? [])] };
}

/** Zero counts, the start of every session sum. */
export function zeroTokens(): TokenCounts {
  return { cache_read: 0, cache_write: 0, output: 0, total: 0 };
}

/** Field-wise sum of two counts. */
export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    output: a.output + b.output,
    total: a.total + b.total,
  };
}
