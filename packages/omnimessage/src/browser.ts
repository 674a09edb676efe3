// @penguin/omnimessage/browser: the protocol for the web app. The same types, guards,
// builders, aggregator and markers as the main entry, and the same `decodeEnvelope` /
// `parseEnvelope` contract, but the decoder interprets the schemas compiled to plain data
// (envelope-shape.generated.ts, checked against the effect decoder by the fuzz suite)
// instead of running effect/Schema, whose parser weighs about 55 KB gzip in a browser. No
// module reachable from here imports effect at runtime (a test walks the imports); the
// effect schemas themselves stay in the main entry, for Node.
import { OMNI_MESSAGE_SHAPE } from "./envelope-shape.generated.js";
import { shapeDecoder } from "./shape-decoder.js";
import type { EnvelopeDecodeResult } from "./schema.js";
import type { OmniMessage } from "./types.js";

export * from "./types.js";
export * from "./guards.js";
export * from "./builders.js";
export * from "./aggregate.js";
export * from "./markers.js";
export type { EnvelopeDecodeResult } from "./schema.js";
/** The interpreter of compiled shapes, for other schemas compiled the same way (the server's HTTP contract). */
export { shapeIssue, type Shape } from "./shape-decoder.js";

/**
 * Decode untrusted JSON (an SSE data field, an HTTP body) as an envelope: the value itself
 * when it is one, else a message naming the path of the first bad field, e.g.
 * `["payload"]["status"]: Expected "completed" | … , actual "done"`.
 */
export const decodeEnvelope: (value: unknown) => EnvelopeDecodeResult = shapeDecoder(OMNI_MESSAGE_SHAPE);

/** `decodeEnvelope` for callers that skip what does not decode: the envelope, or undefined. */
export function parseEnvelope(value: unknown): OmniMessage | undefined {
  const result = decodeEnvelope(value);
  return result.ok ? (result.message as OmniMessage) : undefined;
}
