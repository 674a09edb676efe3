/**
 * Trace analysis for `GET A/traces/:sid/analysis` and `GET S/analysis`: what the Traces page
 * charts, computed once on the server from the session's trace files.
 *
 * The statistics are core's `summarizeTrace` (tasks, their requests with status, attempt,
 * retry wait and usage, compactions, totals), so the CLI, the session list and this page
 * count the same way. The one thing the summary does not carry is time; a second pass over
 * the same envelopes pairs each `request_begin` with its `request_end` under the summary's
 * own rule (main-session messages only, requests inside a compaction span excluded), so the
 * n-th timing belongs to the n-th summarized request.
 *
 * Per request: context (cache_read + cache_write, the prompt the model saw), the cached
 * part and the hit rate, output, duration, status and retry. Cost is left to the client,
 * which has the model's prices.
 *
 * `analyzeSessionWithTimeline` is what the routes answer, from the timeline projection in
 * projections.db (caught up first), so no JSONL is read per request: the same statistics,
 * folded by the projection under the same rules (projections/timeline analysis.ts), plus how
 * many events there are, every tool call with its position, duration and status, and the
 * subagent pointers. Only a session the projection has not seen is analyzed from its files.
 */
import { readFileSync } from "node:fs";
import { parseTraceText, sessionTraceFiles, summarizeTrace, type AgentPaths, type TraceSummary } from "@penguin/core";
import { isEvent, type OmniMessage } from "@penguin/omnimessage";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { sessionAnalysis, sessionTimeline, type RenderedAnalysis, type RequestAnalysis } from "@penguin/projections-timeline";
import { notFound } from "../http/api-error.js";

export type { RequestAnalysis };

/** What the routes answer: the projection's statistics, with the session and its file count. */
export interface TraceAnalysis extends Omit<RenderedAnalysis, "status"> {
  sessionId: string;
  status: TraceSummary["status"];
  files: number;
}

export interface TimelineAnalysis {
  events: number;
  toolCalls: { position: string; name: string; durationMs: number | null; status: string | null }[];
  subagents: { position: string; sessionId: string }[];
}

interface Timing {
  fileIndex: number;
  startedAt: string;
  durationMs?: number;
}

/** Begin/end pairs of the main session's own requests, in order (compaction requests excluded). */
function requestTimings(entries: readonly { fileIndex: number; message: OmniMessage }[]): Timing[] {
  const out: Timing[] = [];
  let open: Timing | undefined;
  let compacting = false;
  for (const { fileIndex, message: m } of entries) {
    if (m.origin !== undefined && m.origin.length > 0) continue;
    if (isEvent(m, "compaction_begin")) compacting = true;
    else if (isEvent(m, "compaction_end")) compacting = false;
    else if (compacting) continue;
    else if (isEvent(m, "request_begin")) {
      open = { fileIndex, startedAt: m.timestamp };
      out.push(open);
    } else if (isEvent(m, "request_end") && open !== undefined) {
      const ms = Date.parse(m.timestamp) - Date.parse(open.startedAt);
      if (Number.isFinite(ms)) open.durationMs = Math.max(0, ms);
      open = undefined;
    }
  }
  return out;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function analyzeSession(agent: AgentPaths, sessionId: string): TraceAnalysis {
  const files = sessionTraceFiles(agent, sessionId);
  if (files.length === 0) throw notFound(`trace ${sessionId}`);
  const entries: { fileIndex: number; message: OmniMessage }[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(f.file, "utf8");
    } catch {
      continue;
    }
    for (const message of parseTraceText(text).messages) entries.push({ fileIndex: f.index, message });
  }
  return analyzeMessages(sessionId, entries, files.length);
}

export function analyzeMessages(sessionId: string, entries: readonly { fileIndex: number; message: OmniMessage }[], fileCount: number): TraceAnalysis {
  const summary = summarizeTrace(entries.map((e) => e.message));
  const timings = requestTimings(entries);
  const requests: RequestAnalysis[] = [];
  summary.tasks.forEach((task, t) => {
    for (const r of task.requests) {
      const timing = timings[requests.length];
      const cacheRead = r.usage?.cache_read ?? 0;
      const cacheWrite = r.usage?.cache_write ?? 0;
      const context = cacheRead + cacheWrite;
      const row: RequestAnalysis = {
        n: requests.length + 1,
        task: t + 1,
        fileIndex: timing?.fileIndex ?? 1,
        status: r.status,
        context,
        cacheRead,
        cacheWrite,
        output: r.usage?.output ?? 0,
        total: r.usage?.total ?? 0,
        toolCalls: r.toolCalls.length,
      };
      if (r.attempt !== undefined) row.attempt = r.attempt;
      if (r.retryInMs !== undefined) row.retryInMs = r.retryInMs;
      if (r.error !== undefined) row.error = r.error;
      if (r.usage !== undefined && context > 0) row.cacheHitRate = cacheRead / context;
      if (timing !== undefined) row.startedAt = timing.startedAt;
      if (timing?.durationMs !== undefined) row.durationMs = timing.durationMs;
      requests.push(row);
    }
  });
  const tasks = summary.tasks.map((task, i) => ({
    n: i + 1,
    prompt: task.prompt === undefined ? null : clip(task.prompt, 300),
    status: task.status,
    requests: task.requests.length,
    steering: task.steering.length,
    compactions: task.compactions.length,
    output: task.requests.reduce((n, r) => n + (r.usage?.output ?? 0), 0),
    total: task.requests.reduce((n, r) => n + (r.usage?.total ?? 0), 0),
  }));
  const compactions = summary.tasks.flatMap((task, i) =>
    task.compactions.map((c) => ({ task: i + 1, reason: c.reason, mode: c.mode, contextTokens: c.contextTokens, status: c.status, ...(c.error === undefined ? {} : { error: c.error }) })),
  );
  const meta = summary.meta;
  return {
    sessionId,
    model: meta === undefined ? null : { provider: meta.provider, modelId: meta.model_id, contextWindow: meta.model_context_window },
    source: meta?.source ?? null,
    status: summary.status,
    startedAt: summary.startedAt ?? null,
    endedAt: summary.endedAt ?? null,
    totals: {
      requests: summary.requests,
      retries: summary.retries,
      toolCalls: summary.toolCalls,
      compactions: summary.compactions,
      cacheRead: summary.usage.cache_read,
      cacheWrite: summary.usage.cache_write,
      output: summary.usage.output,
      total: summary.usage.total,
      durationMs: requests.reduce((n, r) => n + (r.durationMs ?? 0), 0),
    },
    tasks,
    compactions,
    requests,
    files: fileCount,
  };
}

export async function analyzeSessionWithTimeline(projections: LiveProjectionRunner, agent: AgentPaths, sessionId: string): Promise<TraceAnalysis & { timeline: TimelineAnalysis }> {
  const files = sessionTraceFiles(agent, sessionId);
  if (files.length === 0) throw notFound(`trace ${sessionId}`);
  await projections.refresh();
  const { stored, t } = await projections.read(async (db) => ({ stored: await sessionAnalysis(db, sessionId), t: await sessionTimeline(db, sessionId) }));
  const analysis: TraceAnalysis = stored === undefined ? analyzeSession(agent, sessionId) : { sessionId, ...(stored as Omit<TraceAnalysis, "sessionId" | "files">), files: files.length };
  return {
    ...analysis,
    timeline: {
      events: t.events.length,
      toolCalls: t.toolCalls.map((c) => ({ position: c.position, name: c.name, durationMs: c.duration_ms === null ? null : Number(c.duration_ms), status: c.status })),
      subagents: t.subagents.map((s) => ({ position: s.position, sessionId: s.child_session_id })),
    },
  };
}
