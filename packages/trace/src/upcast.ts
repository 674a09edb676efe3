/**
 * Upcasting: older line shapes read as today's envelopes, without rewriting any file.
 *
 * Applied to each parsed line before it is decoded. Each rule names the old shape it reads:
 * - a `session_meta` without `model_context_window` (or with `null`), as early writers left
 *   it when the window was unknown, reads as `"unknown"`;
 * - a `session_meta` with the seeds' `thinking_level` field (the setting was later moved out
 *   of the meta) also yields that level as the session's setting: `legacyThinkingLevel`
 *   below reads it, and the field itself is kept as an opaque extra;
 * - a `tool_call` whose `arguments` is an object rather than the JSON string reads as that
 *   object serialized, which is what the model sent.
 * Anything else is returned as it is (the same object, no copy).
 */

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function upcastLine(value: unknown): unknown {
  if (!isObject(value) || !isObject(value.payload)) return value;
  const payload = value.payload;
  if (value.type === "session_meta" && (payload.model_context_window === undefined || payload.model_context_window === null)) {
    return { ...value, payload: { ...payload, model_context_window: "unknown" } };
  }
  if (value.type === "model_msg" && payload.type === "tool_call" && isObject(payload.arguments)) {
    return { ...value, payload: { ...payload, arguments: JSON.stringify(payload.arguments) } };
  }
  return value;
}

/** The thinking level an old `session_meta` carried, if any. */
export function legacyThinkingLevel(meta: object): string | undefined {
  const level = (meta as JsonObject).thinking_level;
  return typeof level === "string" && level !== "" ? level : undefined;
}
