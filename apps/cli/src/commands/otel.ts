/**
 * `penguin otel export SID|--since DATE [--endpoint URL] [--contents]`: past sessions re-sent
 * as OpenTelemetry spans over OTLP/HTTP. The span tree is a projection of the trace
 * (@penguin/projections-otel), with ids derived from the session and its records, so sending a
 * session again gives the collector the same spans (recognisable duplicates), never new ones.
 * Without --endpoint the standard OTEL_EXPORTER_OTLP_* variables name the collector. Imported
 * lazily by program.ts, and the OpenTelemetry exporter only when a session is sent.
 */
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { Output } from "../render/output.js";
import { pathsOf, type AgentSelector } from "../traces/load-session.js";

export interface OtelExportFlags extends AgentSelector {
  since?: string;
  endpoint?: string;
  contents?: boolean;
}

function sinceMs(text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00`).getTime() : Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`--since "${text}": give a local date (YYYY-MM-DD) or an ISO time, e.g. --since 2026-12-01`);
  return ms;
}

export async function otelExport(sessionId: string | undefined, flags: OtelExportFlags): Promise<ExitCode> {
  if ((sessionId === undefined) === (flags.since === undefined)) throw new UsageError("give a session id or --since DATE (one of them), e.g. penguin otel export --since 2026-12-01 --endpoint http://127.0.0.1:4318");
  if (flags.endpoint === undefined && process.env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined && process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined) {
    throw new UsageError("no collector: give --endpoint URL (e.g. http://127.0.0.1:4318) or set OTEL_EXPORTER_OTLP_ENDPOINT");
  }
  const paths = await pathsOf(flags);
  const { listTracedSessions, loadRecording, sessionTraceFiles } = await import("@penguin/core");
  let ids: string[];
  if (sessionId !== undefined) {
    if (sessionTraceFiles(paths, sessionId).length === 0) throw new UsageError(`no session ${sessionId} in ${paths.tracesDir} (penguin sessions lists the sessions of this agent)`);
    ids = [sessionId];
  } else {
    const from = sinceMs(flags.since!);
    ids = listTracedSessions(paths).filter((s) => s.mtimeMs >= from).map((s) => s.sessionId).reverse();
  }
  const { exportSpans, sessionSpans } = await import("@penguin/projections-otel");
  const out = Output.of(process.stdout);
  let total = 0;
  for (const id of ids) {
    const records = loadRecording({ paths }, id).events.map((e) => ({ n: e.n, message: e.message }));
    const spans = sessionSpans(records, { contents: flags.contents === true, agentName: paths.agentId });
    await exportSpans(spans, flags.endpoint === undefined ? {} : { endpoint: flags.endpoint });
    total += spans.length;
    out.line(`${id}: ${spans.length} span${spans.length === 1 ? "" : "s"} sent`);
  }
  out.line(`${ids.length} session${ids.length === 1 ? "" : "s"}, ${total} span${total === 1 ? "" : "s"} sent`);
  return EXIT.done;
}
