/**
 * Type guards over OmniMessage envelopes, so callers narrow instead of casting.
 *
 * `isModel(m, "tool_call")` and `isEvent(m, "request_end")` narrow both the envelope and its
 * payload; `isPartial` / `isCompleteModel` split the model family by streaming state.
 * Guards never decode: `parseEnvelope` (the tolerant reader of untrusted JSON) lives beside
 * its decoder, in schema.ts for Node and in browser.ts for the web app, so importing a guard
 * never loads a decoder the caller did not choose.
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

/** Narrow a session_meta payload out of an envelope, or undefined. */
export function sessionMetaOf(m: OmniMessage): SessionMetaPayload | undefined {
  return m.type === "session_meta" ? m.payload : undefined;
}
