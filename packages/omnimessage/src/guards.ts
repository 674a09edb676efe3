/**
 * Type guards over OmniMessage envelopes, so callers narrow instead of casting.
 *
 * `isModel(m, "tool_call")` and `isEvent(m, "request_end")` narrow both the envelope and its
 * payload; `isPartial` / `isCompleteModel` split the model family by streaming state.
 * `parseEnvelope` is the tolerant reader used on untrusted JSON (Trace lines, SSE, HTTP
 * bodies): it checks the envelope shape and answers `undefined` instead of throwing.
 */
import type {
  CompleteModelPayload,
  EventPayload,
  ModelPayload,
  OmniMessage,
  PartialPayload,
  PayloadOf,
  SessionMetaPayload,
  StopReason,
} from "./types.js";
import { STOP_REASONS } from "./types.js";

type EventTag = EventPayload["type"];
type ModelTag = ModelPayload["type"];

export type ModelMessage<T extends ModelTag = ModelTag> = Omit<OmniMessage<"model_msg">, "payload"> & {
  payload: PayloadOf<T>;
};
export type EventMessage<T extends EventTag = EventTag> = Omit<OmniMessage<"event_msg">, "payload"> & {
  payload: PayloadOf<T>;
};
export type SessionMetaMessage = OmniMessage<"session_meta">;

const PARTIAL_TAGS = new Set<string>([
  "partial_text",
  "partial_thinking",
  "partial_tool_call",
  "partial_tool_call_output",
]);
const COMPLETE_TAGS = new Set<string>([
  "text",
  "thinking",
  "inline_thinking",
  "tool_call",
  "tool_call_output",
  "image_url",
  "inline_data",
]);
const EVENT_TAGS = new Set<string>([
  "request_begin",
  "request_end",
  "token_usage",
  "approval_decision",
  "abort",
  "compaction_begin",
  "compaction_end",
  "subagent",
  "tool_list_ready",
  "mcp_connect_begin",
  "mcp_connect_end",
  "goal_finished",
  "forked_from",
]);

export function isSessionMeta(m: OmniMessage): m is SessionMetaMessage {
  return m.type === "session_meta";
}

/** A model message, optionally of one payload type. */
export function isModel<T extends ModelTag>(m: OmniMessage, tag?: T): m is ModelMessage<T> {
  return m.type === "model_msg" && (tag === undefined || m.payload.type === tag);
}

/** An event, optionally of one payload type. */
export function isEvent<T extends EventTag>(m: OmniMessage, tag?: T): m is EventMessage<T> {
  return m.type === "event_msg" && (tag === undefined || m.payload.type === tag);
}

export function isPartialPayload(p: ModelPayload): p is PartialPayload {
  return PARTIAL_TAGS.has(p.type);
}

export function isPartial(m: OmniMessage): m is Omit<OmniMessage<"model_msg">, "payload"> & { payload: PartialPayload } {
  return m.type === "model_msg" && PARTIAL_TAGS.has(m.payload.type);
}

export function isCompleteModel(
  m: OmniMessage,
): m is Omit<OmniMessage<"model_msg">, "payload"> & { payload: CompleteModelPayload } {
  return m.type === "model_msg" && COMPLETE_TAGS.has(m.payload.type);
}

/** A message that belongs in a Trace: no partials and nothing forwarded from a child. */
export function isTraceable(m: OmniMessage): boolean {
  if (m.origin !== undefined && m.origin.length > 0) return false;
  return !isPartial(m);
}

export function isStopReason(v: unknown): v is StopReason {
  return typeof v === "string" && (STOP_REASONS as readonly string[]).includes(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks untrusted JSON for the envelope shape: a string timestamp, a known family, a payload
 * object with a known `type` tag (session_meta: a `session_id` string), and an `origin` that is
 * a list of strings when present. Fields inside the payload are not validated further; readers
 * treat unknown extra fields as opaque, so newer files stay readable.
 */
export function parseEnvelope(value: unknown): OmniMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { timestamp, type, payload, origin } = value;
  if (typeof timestamp !== "string" || !isRecord(payload)) return undefined;
  if (origin !== undefined && !(Array.isArray(origin) && origin.every((o) => typeof o === "string"))) {
    return undefined;
  }
  switch (type) {
    case "session_meta":
      if (typeof payload.session_id !== "string") return undefined;
      break;
    case "model_msg":
      if (typeof payload.type !== "string" || !(PARTIAL_TAGS.has(payload.type) || COMPLETE_TAGS.has(payload.type))) {
        return undefined;
      }
      break;
    case "event_msg":
      if (typeof payload.type !== "string" || !EVENT_TAGS.has(payload.type)) return undefined;
      break;
    default:
      return undefined;
  }
  return value as OmniMessage;
}

/** Narrow a session_meta payload out of an envelope, or undefined. */
export function sessionMetaOf(m: OmniMessage): SessionMetaPayload | undefined {
  return m.type === "session_meta" ? m.payload : undefined;
}
