/**
 * The exact JSON text of a tool output, as the trace line it was read from holds it.
 *
 * A resumed session sends its whole history in its next request, and tool outputs are most of
 * its bytes (29 of the 34 MB a 100k-line session sends). Their JSON text is already on disk:
 * the trace line holds each output as a JSON string literal, which is what the request body
 * needs too. The trace reader, where it can prove which bytes of a line are that literal,
 * keeps them beside the payload here; the wire encoders copy them into the body instead of
 * escaping and encoding the string again (models: wire-body.ts).
 *
 * Kept in a WeakMap keyed by the payload object, not on the payload: the payload stays the
 * plain protocol value (its schema, its JSON, equality in tests), and a payload rebuilt or
 * copied anywhere simply has no raw text, so it is encoded the ordinary way. The bytes are
 * a JSON string literal, quotes included, that parses to exactly the payload's `output`.
 */

const rawOutputs = new WeakMap<object, Uint8Array>();

/** Notes `json` (a JSON string literal that parses to `payload.output`) as the payload's output text. */
export function keepRawOutputJson(payload: object, json: Uint8Array): void {
  rawOutputs.set(payload, json);
}

/** The JSON string literal of `payload.output` as its trace line held it, when the reader kept it. */
export function rawOutputJsonOf(payload: object): Uint8Array | undefined {
  return rawOutputs.get(payload);
}
