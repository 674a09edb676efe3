/**
 * @penguin/projections-otel: OpenTelemetry as a projection of the trace (span-tree.ts) and its
 * export over OTLP/HTTP (otlp-export.ts). Hosts read the records (core's trace reader), build
 * the tree, and send it; nothing here reads files or clocks.
 */
export { sessionSpans, parseTraceparent, traceIdOf, spanIdOf, GEN_AI, type SessionSpan, type SpanTreeOptions, type TraceRecord, type SpanAttributeValue } from "./span-tree.js";
export { exportSpans, tracesUrl, type OtlpTarget } from "./otlp-export.js";
