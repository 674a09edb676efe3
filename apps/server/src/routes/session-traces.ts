/**
 * Per-session traces and scratch files: the session's trace files, one file as numbered
 * envelopes, and a scratchpad file (uploads, archived tool output) served raw with nosniff
 * and a sandbox CSP, and the session's trace analysis (services/trace-analysis.ts); one record
 * whole by its position (`records/NNN:LLLLLL`): what a page, the history or a time-travel state
 * cut of a long text (their `payload.cut` names it), streamed as the bytes of its line.
 */
import { sessionScratchpad } from "@penguin/core";
import { Schema } from "effect";
import { IntFromText, Text, WithDefault } from "../http/schemas.js";
import { ApiError, badRequest } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { resolveInside } from "../services/confined-path.js";
import { readFileBytes } from "../services/files.js";
import { rawFileResponse } from "../services/raw-file.js";
import { refuseSecret } from "../services/workspace-roots.js";
import { analyzeSessionWithTimeline } from "../services/trace-analysis.js";
import { traceFilesOf, traceLines, wholeRecord } from "../services/trace-view.js";
import { SessionTraceFiles, TraceAnalysis, TraceFilePage, TraceRecord } from "../contract/index.js";

const Paging = Schema.Struct({ offset: WithDefault(IntFromText(0), 0), limit: WithDefault(IntFromText(1, 5000), 500) });
/** A trace file page: whole envelopes, or (`view=outline`) what time travel lists each event by. */
const FilePaging = Schema.Struct({ ...Paging.fields, view: WithDefault(Schema.Literal("full", "outline"), "full") });
const MAX_SCRATCH = 200 * 1024 * 1024;
/** A record's position, `NNN:LLLLLL` (file index, line number). */
const RecordPosition = Schema.String.pipe(Schema.pattern(/^\d{3}:\d{6}$/, { message: () => "must be a record position NNN:LLLLLL (file index, line number)" }));

export function sessionTraceRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    { method: "get", path: "/api/sessions/:id/traces", operationId: "sessionTraces.list", summary: "The session's trace files", tag: "traces", access: "session", responses: { 200: { description: "{files: [{index, size}]}", schema: SessionTraceFiles } } },
    ({ grant }) => json({ files: traceFilesOf(grant.agent, grant.session.sessionId).map(({ index, size }) => ({ index, size })) }),
  );

  table.add(
    { method: "get", path: "/api/sessions/:id/traces/:idx", operationId: "sessionTraces.file", summary: "One trace file as numbered envelopes", tag: "traces", access: "session", params: Schema.Struct({ idx: IntFromText(1) }), query: FilePaging, responses: { 200: { description: "{lines, total, nextOffset}; with view=outline each message is {type, payload: {type, role?, name?}}", schema: TraceFilePage } } },
    async ({ grant, params, query }) => json({ index: params.idx, ...(await traceLines(ctx.traceRecords, grant.agent, grant.session.sessionId, params.idx, query.offset, query.limit, query.view)) }),
  );

  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/records/:at",
      operationId: "sessionTraces.record",
      summary: "One record whole (NNN:LLLLLL), as its trace line's JSON: what a cut record left out",
      tag: "traces",
      access: "session",
      params: Schema.Struct({ at: RecordPosition }),
      responses: { 200: { description: "The envelope's JSON, streamed", schema: TraceRecord }, 404: { description: "No record at that position" } },
    },
    async ({ grant, params }) => {
      const [file, line] = params.at.split(":").map(Number) as [number, number];
      if (file < 1 || line < 1) throw badRequest("a position counts files and lines from 1 (NNN:LLLLLL)", "at");
      return wholeRecord(ctx.traceRecords, grant.agent, grant.session.sessionId, { file, line });
    },
  );

  table.add(
    { method: "get", path: "/api/sessions/:id/analysis", operationId: "sessionTraces.analysis", summary: "Per-request context, cache, output, duration and retries; tasks; compactions", tag: "traces", access: "session", responses: { 200: { description: "{model, status, totals, tasks, compactions, requests}", schema: TraceAnalysis } } },
    async ({ grant }) => json(await analyzeSessionWithTimeline(ctx.projections, grant.agent, grant.session.sessionId)),
  );

  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/scratchpad/:file{.+}",
      operationId: "sessionTraces.scratchpad",
      summary: "A scratchpad file, raw (nosniff, sandbox CSP)",
      tag: "traces",
      access: "session",
      params: Schema.Struct({ file: Text(1) }),
      query: Schema.Struct({ download: Schema.optional(Schema.Literal("1", "true", "")) }),
      responses: { 200: { description: "The bytes", contentType: "application/octet-stream" } },
    },
    ({ grant, params, query }) => {
      refuseSecret(params.file);
      const file = resolveInside(sessionScratchpad(grant.agent, grant.session.sessionId), params.file);
      refuseSecret(params.file, file);
      const { bytes, size } = readFileBytes(file, MAX_SCRATCH);
      if (size > bytes.length) throw new ApiError(413, "payload_too_large", "the file is too large to serve");
      return rawFileResponse(file, bytes, query.download === undefined ? "preview" : "download");
    },
  );
}
