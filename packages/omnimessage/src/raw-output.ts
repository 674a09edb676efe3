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
 *
 * From an all-ASCII line, the payload also lets go of its decoded `output` string until
 * something reads it (`withOutputDecodedOnRead`): the property is an accessor, shared by every
 * such payload, that parses the bytes on the first read and turns back into the plain data
 * property holding that string. A resumed session's history is mostly tool outputs that its
 * next request sends as these bytes, so until a reader asks (a compaction, the history served
 * to a browser) the session holds each output once, as bytes, not twice, and the garbage
 * collector never copies the strings. Reading, spreading, JSON.stringify and equality see the
 * same value either way; only `Object.getOwnPropertyDescriptor` tells the difference.
 */

const rawOutputs = new WeakMap<object, Uint8Array>();
/** Payloads made by `withOutputDecodedOnRead`: their kept text is all ASCII, so its length in bytes is its length as a JS string. */
const asciiOutputs = new WeakSet<object>();

/** Notes `json` (a JSON string literal that parses to `payload.output`) as the payload's output text. */
export function keepRawOutputJson(payload: object, json: Uint8Array): void {
  rawOutputs.set(payload, json);
}

/**
 * A copy of `payload` without its `output` string, which is decoded from `json` (a JSON
 * string literal that parses to it, all ASCII, so any UTF-8 decoder gives the text the trace
 * reader gave) when first read; `json` is kept as its output text. A copy, its keys in the
 * same order, because turning the existing property into an accessor would put the object in
 * V8's slow dictionary mode, where a fresh one that gets the shared accessor stays fast.
 */
export function withOutputDecodedOnRead<P extends { output: string }>(payload: P, json: Uint8Array): P {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(payload)) {
    if (key === "output") Object.defineProperty(copy, "output", OUTPUT_DECODED_ON_READ);
    else copy[key] = (payload as Record<string, unknown>)[key];
  }
  rawOutputs.set(copy, json);
  asciiOutputs.add(copy);
  return copy as P;
}

/**
 * The length, in UTF-16 units, of the kept JSON text of `payload.output` where that is its
 * byte length (made by `withOutputDecodedOnRead`, so all ASCII): what a length estimate can
 * use without decoding the output. Undefined otherwise.
 */
export function asciiRawOutputLength(payload: object): number | undefined {
  return asciiOutputs.has(payload) ? rawOutputs.get(payload)?.length : undefined;
}

/** The platform's UTF-8 decoder (Node and browsers alike), typed here as this package has no DOM or Node types. */
const utf8 = new (globalThis as unknown as { TextDecoder: new () => { decode(bytes: Uint8Array): string } }).TextDecoder();

/** The output as the plain data property it was, holding `value`. */
function settle(payload: object, value: unknown): void {
  Object.defineProperty(payload, "output", { value, writable: true, enumerable: true, configurable: true });
}

/** One accessor for every payload (so they keep sharing one shape): decode on the first read, then settle. */
const OUTPUT_DECODED_ON_READ: PropertyDescriptor = {
  get(this: object): string {
    const json = rawOutputs.get(this);
    if (json === undefined) throw new Error("raw-output: a tool output to decode on read has no kept text");
    const text = JSON.parse(utf8.decode(json)) as string;
    settle(this, text);
    return text;
  },
  set(this: object, value: unknown): void {
    // Another output: the kept text is no longer its JSON.
    rawOutputs.delete(this);
    asciiOutputs.delete(this);
    settle(this, value);
  },
  enumerable: true,
  configurable: true,
};

/** Whether `payload.output` is the empty string, answered from its kept text when there is one (so it is not decoded). */
export function outputIsEmpty(payload: { output: string }): boolean {
  const json = rawOutputs.get(payload);
  return json === undefined ? payload.output === "" : json.length === 2;
}

/** The JSON string literal of `payload.output` as its trace line held it, when the reader kept it. */
export function rawOutputJsonOf(payload: object): Uint8Array | undefined {
  return rawOutputs.get(payload);
}
