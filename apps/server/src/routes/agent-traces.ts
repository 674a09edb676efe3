/**
 * The agent's trace browser: every traced session of the agent (CLI ones included), one
 * trace file as numbered envelopes, the raw JSONL download, and importing a JSONL trace as a
 * new session, and a session's analysis (services/trace-analysis.ts, from core's summary).
 */
import { isSessionId, listTracedSessions } from "@penguin/core";
import { Schema } from "effect";
import { IntFromText, Text, WithDefault } from "../http/schemas.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { analyzeSessionWithTimeline } from "../services/trace-analysis.js";
import { importTrace, TRACE_IMPORT_MAX } from "../services/trace-import.js";
import { traceDownload, traceFilesOf, traceLines } from "../services/trace-view.js";
import { AgentTraceList, TraceAnalysis, TraceFilePage, TraceImported } from "../contract/index.js";

const SessionIdText = Schema.String.pipe(Schema.filter((s) => isSessionId(s), { message: () => "is not a session id" }));
const Sid = Schema.Struct({ sid: SessionIdText });
const Paging = Schema.Struct({ offset: WithDefault(IntFromText(0), 0), limit: WithDefault(IntFromText(1, 5000), 500) });
/** A trace file page: whole envelopes, or (`view=outline`) what time travel lists each event by. */
const FilePaging = Schema.Struct({ ...Paging.fields, view: WithDefault(Schema.Literal("full", "outline"), "full") });

export function agentTraceRoutes(table: RouteTable, ctx: ServerContext): void {
  const base = "/api/projects/:p/agents/:a/traces";

  table.add(
    { method: "get", path: base, operationId: "agentTraces.list", summary: "Traced sessions of the agent, most recent first", tag: "traces", access: "agent", query: Paging, responses: { 200: { description: "{sessions: [{sessionId, files, mtimeMs}], total}", schema: AgentTraceList } } },
    ({ grant, query }) => {
      const all = listTracedSessions(grant.agent);
      const sessions = all.slice(query.offset, query.offset + query.limit).map((s) => ({ sessionId: s.sessionId, mtimeMs: Math.floor(s.mtimeMs), files: traceFilesOf(grant.agent, s.sessionId).map(({ index, size }) => ({ index, size })) }));
      return json({ sessions, total: all.length });
    },
  );

  table.add(
    { method: "post", path: `${base}/import`, operationId: "agentTraces.import", summary: "Import a JSONL trace as a new session", tag: "traces", access: "agent", body: Schema.Struct({ dataBase64: Text(1) }), maxBodyBytes: Math.ceil(TRACE_IMPORT_MAX * 1.4) + 1024, responses: { 201: { description: "{sessionId, replaced: [{field, line, path, replacement, reason}]}: each path of the trace that the workspace roots refuse, and the fresh temporary workspace (or this agent's agent_state) stored instead", schema: TraceImported }, 409: { description: "The session exists" } } },
    ({ grant, body }) => json(importTrace(ctx.stores, ctx.workspaces, grant.agent, body.dataBase64, ctx.now()), 201),
  );

  table.add(
    { method: "get", path: `${base}/:sid/analysis`, operationId: "agentTraces.analysis", summary: "Per-request context, cache, output, duration and retries; tasks; compactions", tag: "traces", access: "agent", params: Sid, responses: { 200: { description: "{model, status, totals, tasks, compactions, requests}", schema: TraceAnalysis } } },
    async ({ grant, params }) => json(await analyzeSessionWithTimeline(ctx.projections, grant.agent, params.sid)),
  );

  table.add(
    { method: "get", path: `${base}/:sid/download`, operationId: "agentTraces.download", summary: "The session's trace files as one JSONL download", tag: "traces", access: "agent", params: Sid, responses: { 200: { description: "JSONL", contentType: "application/x-ndjson" } } },
    ({ grant, params }) => traceDownload(grant.agent, params.sid),
  );

  table.add(
    {
      method: "get",
      path: `${base}/:sid/:idx`,
      operationId: "agentTraces.file",
      summary: "One trace file as numbered envelopes",
      tag: "traces",
      access: "agent",
      params: Schema.Struct({ sid: SessionIdText, idx: IntFromText(1) }),
      query: FilePaging,
      responses: { 200: { description: "{lines: [{line, message}], total, nextOffset}; with view=outline each message is {type, payload: {type, role?, name?}}", schema: TraceFilePage } },
    },
    async ({ grant, params, query }) => json({ sessionId: params.sid, index: params.idx, ...(await traceLines(ctx.traceRecords, grant.agent, params.sid, params.idx, query.offset, query.limit, query.view)) }),
  );
}
