/**
 * Sending span trees over OTLP/HTTP with the OpenTelemetry JS exporter (no encoder of ours):
 * each SessionSpan becomes a finished ReadableSpan with its derived ids and recorded times,
 * handed to `OTLPTraceExporter.export` in batches. Without an endpoint the exporter reads the
 * standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS)
 * variables itself; an endpoint given here is the traces URL (`…/v1/traces`) or a base URL to
 * which `/v1/traces` is added.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type HrTime } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { SessionSpan } from "./span-tree.js";

const BATCH = 512;

export interface OtlpTarget {
  /** The collector's traces URL or base URL; absent: the OTEL_EXPORTER_OTLP_* variables. */
  endpoint?: string;
  /** `service.name` of the resource (default "penguin"). */
  serviceName?: string;
  headers?: Record<string, string>;
}

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** A traces URL from what the user gave: a full `/v1/traces` URL stays, a base URL gets it. */
export function tracesUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, "");
  return trimmed.endsWith("/v1/traces") ? trimmed : `${trimmed}/v1/traces`;
}

function readable(span: SessionSpan, resource: ReadableSpan["resource"]): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  const durationMs = Math.max(0, span.endMs - span.startMs);
  return {
    name: span.name,
    kind: span.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(span.parentSpanId === undefined ? {} : { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
    startTime: hrTime(span.startMs),
    endTime: hrTime(span.endMs),
    status: span.status.code === "ok" ? { code: SpanStatusCode.OK } : span.status.code === "error" ? { code: SpanStatusCode.ERROR, ...(span.status.message === undefined ? {} : { message: span.status.message }) } : { code: SpanStatusCode.UNSET },
    attributes: span.attributes,
    links: [],
    events: [],
    duration: hrTime(durationMs),
    ended: true,
    resource,
    instrumentationScope: { name: "@penguin/projections-otel" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** Sends the spans; resolves once the collector accepted every batch, rejects with the exporter's error otherwise. */
export async function exportSpans(spans: readonly SessionSpan[], target: OtlpTarget = {}): Promise<void> {
  if (spans.length === 0) return;
  const exporter = new OTLPTraceExporter({
    ...(target.endpoint === undefined ? {} : { url: tracesUrl(target.endpoint) }),
    ...(target.headers === undefined ? {} : { headers: target.headers }),
  });
  const resource = resourceFromAttributes({ "service.name": target.serviceName ?? "penguin" });
  try {
    for (let i = 0; i < spans.length; i += BATCH) {
      const batch = spans.slice(i, i + BATCH).map((s) => readable(s, resource));
      await new Promise<void>((resolve, reject) => {
        exporter.export(batch, (result) => {
          if (result.code === ExportResultCode.SUCCESS) resolve();
          else reject(result.error ?? new Error("the OTLP collector did not accept the spans"));
        });
      });
    }
  } finally {
    await exporter.shutdown();
  }
}
