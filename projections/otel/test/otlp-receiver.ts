// An OTLP/HTTP collector for tests: a node http server on 127.0.0.1 that accepts what the
// OpenTelemetry exporter POSTs to /v1/traces (OTLP/JSON: resourceSpans → scopeSpans → spans,
// ids as hex, attributes as typed values), decodes every span, and lets a test wait for a
// number of spans (woken by the requests themselves, never by a timer).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  serviceName: string | undefined;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  requests: number;
  /** Resolves once at least `count` spans arrived. */
  waitFor(count: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };

function valueOf(v: AnyValue | undefined): unknown {
  if (v === undefined) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attributesOf = (list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters: { count: number; resolve: (s: ReceivedSpan[]) => void }[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests++;
      if (req.method !== "POST" || req.url !== "/v1/traces" || !(req.headers["content-type"] ?? "").includes("json")) {
        res.writeHead(415, { "content-type": "application/json" }).end(JSON.stringify({ error: `expected a JSON POST to /v1/traces, got ${req.method} ${req.url} ${req.headers["content-type"]}` }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };
      for (const rs of body.resourceSpans ?? []) {
        const serviceName = attributesOf(rs.resource?.attributes)["service.name"] as string | undefined;
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: String(s.traceId),
              spanId: String(s.spanId),
              parentSpanId: typeof s.parentSpanId === "string" && s.parentSpanId !== "" ? s.parentSpanId : undefined,
              name: String(s.name),
              startTimeUnixNano: String(s.startTimeUnixNano),
              endTimeUnixNano: String(s.endTimeUnixNano),
              attributes: attributesOf(s.attributes as { key: string; value: AnyValue }[] | undefined),
              status: (s.status ?? {}) as { code?: number; message?: string },
              serviceName,
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const w of [...waiters]) {
        if (spans.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve([...spans]);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return requests;
    },
    waitFor: (count) => (spans.length >= count ? Promise.resolve([...spans]) : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
