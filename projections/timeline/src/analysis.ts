/**
 * The trace viewer's statistics as part of the timeline projection, so the server answers
 * them without reading the session's JSONL: per session one row, `timeline_analysis`, holding
 * the state of a fold over its envelopes, and `renderAnalysis` turning that state into the
 * viewer's `TraceAnalysis` (tasks, requests with status, attempt, retry wait, usage, duration
 * and tool calls, compactions, totals, status).
 *
 * The fold follows core's `summarizeTrace` rule for rule (and the server's pairing of
 * `request_begin` with `request_end` for durations), incrementally: main-session envelopes
 * only; a prompt is a user text without sender, steering a `[user_steering]` one; a window is
 * attached to a task once its first record shows whether a new task starts; requests inside a
 * compaction span belong to the compaction; usage is summed from `token_usage.request`; a task
 * is `aborted` on a user abort, `failed` on another, `running?` while its last request or a
 * compaction has no end. What the end of the trace decides (attaching a window still open,
 * each task's status) is decided when rendering, so the stored state only ever moves forward
 * with the events and a rebuild writes the same row.
 *
 * The state keeps what the statistics need and no content: a request is its numbers, a task
 * its clipped prompt and counts.
 */
import type { Kysely } from "kysely";
import { addTokens, startsWithMarker, zeroTokens, type OmniMessage, type TokenCounts } from "@penguin/omnimessage";
import { parseEventTime, type RowWriter, type TraceEvent } from "@penguin/projections-runner";

interface RequestState {
  fileIndex: number;
  status: string;
  attempt?: number;
  retryInMs?: number;
  error?: string;
  usage?: TokenCounts;
  toolCalls: number;
  startedAt: string;
  durationMs?: number;
}

interface CompactionState {
  reason: string;
  mode: string;
  contextTokens: number;
  status: string;
  error?: string;
}

interface TaskState {
  prompt: string | null;
  /** Indexes into `requests`, in order. */
  requests: number[];
  steering: number;
  compactions: CompactionState[];
  abort?: string;
}

export interface AnalysisState {
  meta: { provider: string; modelId: string; contextWindow: number | "unknown"; source: string | null } | null;
  startedAt: string | null;
  endedAt: string | null;
  tasks: TaskState[];
  requests: RequestState[];
  usage: TokenCounts;
  /** The current task, request, window not attached yet, and compaction in progress (indexes; -1 for none). */
  task: number;
  request: number;
  unattached: number;
  /** Index into the current task's compactions. */
  compaction: number;
  /** The request whose `request_end` gives the next duration. */
  timing: number;
}

export interface TimelineAnalysisRow {
  session_id: string;
  state: string;
}

export interface AnalysisTables {
  timeline_analysis: TimelineAnalysisRow;
}

const PROMPT_MAX = 300;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function initialAnalysis(): AnalysisState {
  return { meta: null, startedAt: null, endedAt: null, tasks: [], requests: [], usage: zeroTokens(), task: -1, request: -1, unattached: -1, compaction: -1, timing: -1 };
}

function currentTask(s: AnalysisState): TaskState {
  if (s.task < 0) {
    s.tasks.push({ prompt: null, requests: [], steering: 0, compactions: [] });
    s.task = s.tasks.length - 1;
  }
  return s.tasks[s.task]!;
}

function attach(s: AnalysisState): void {
  if (s.unattached < 0) return;
  currentTask(s).requests.push(s.unattached);
  s.unattached = -1;
}

/** Folds one envelope into `s` (changed in place: the state is this projection's own working copy). */
export function stepAnalysis(s: AnalysisState, m: OmniMessage, fileIndex: number): void {
  if (m.origin !== undefined && m.origin.length > 0) return;
  s.startedAt ??= m.timestamp;
  s.endedAt = m.timestamp;
  const compacting = s.compaction >= 0;
  if (m.type === "session_meta") {
    const p = m.payload;
    s.meta ??= { provider: p.provider, modelId: p.model_id, contextWindow: p.model_context_window, source: p.source ?? null };
    return;
  }
  if (m.type === "model_msg") {
    const p = m.payload;
    if (compacting) return;
    if (p.type === "text" && p.role === "user") {
      if (p.sender !== undefined) return;
      if (startsWithMarker(p.text, "user_steering")) {
        attach(s);
        currentTask(s).steering += 1;
        return;
      }
      s.tasks.push({ prompt: clip(p.text, PROMPT_MAX), requests: [], steering: 0, compactions: [] });
      s.task = s.tasks.length - 1;
      attach(s);
      return;
    }
    attach(s);
    if (p.type === "tool_call" && s.request >= 0) s.requests[s.request]!.toolCalls += 1;
    return;
  }
  if (m.type !== "event_msg") return;
  const e = m.payload;
  switch (e.type) {
    case "request_begin":
      if (compacting) return;
      attach(s);
      s.requests.push({ fileIndex, status: "open", toolCalls: 0, startedAt: m.timestamp });
      s.request = s.requests.length - 1;
      s.unattached = s.request;
      s.timing = s.request;
      return;
    case "request_end": {
      if (compacting || s.request < 0) return;
      attach(s);
      const r = s.requests[s.request]!;
      r.status = e.status;
      if (e.attempt !== undefined) r.attempt = e.attempt;
      if (e.retry_in_ms !== undefined) r.retryInMs = e.retry_in_ms;
      if (e.error_message !== undefined) r.error = e.error_message;
      if (s.timing >= 0) {
        const t = s.requests[s.timing]!;
        const ms = parseEventTime(m.timestamp) - parseEventTime(t.startedAt);
        if (Number.isFinite(ms)) t.durationMs = Math.max(0, ms);
        s.timing = -1;
      }
      return;
    }
    case "token_usage":
      s.usage = addTokens(s.usage, e.request);
      if (!compacting && s.request >= 0) s.requests[s.request]!.usage = { ...e.request };
      return;
    case "abort":
      attach(s);
      currentTask(s).abort = e.reason ?? "aborted";
      return;
    case "compaction_begin": {
      attach(s);
      const task = currentTask(s);
      task.compactions.push({ reason: e.reason, mode: e.mode, contextTokens: e.context, status: "open" });
      s.compaction = task.compactions.length - 1;
      return;
    }
    case "compaction_end":
      if (compacting) {
        const c = s.tasks[s.task]!.compactions[s.compaction]!;
        c.status = e.status;
        if (e.error_message !== undefined) c.error = e.error_message;
      }
      s.compaction = -1;
      return;
    default:
      return;
  }
}

export async function migrateAnalysisTable(db: Kysely<AnalysisTables>): Promise<void> {
  await db.schema.createTable("timeline_analysis").addColumn("session_id", "text", (c) => c.primaryKey()).addColumn("state", "text", (c) => c.notNull()).execute();
}

/** Folds a batch into each session's stored state and writes the states back. */
export async function applyAnalysis(batch: readonly TraceEvent[], db: Kysely<AnalysisTables>, rows: RowWriter): Promise<void> {
  const states = new Map<string, AnalysisState>();
  const sessions = [...new Set(batch.map((e) => e.sessionId))];
  for (let i = 0; i < sessions.length; i += 400) {
    const found = await db.selectFrom("timeline_analysis").select(["session_id", "state"]).where("session_id", "in", sessions.slice(i, i + 400)).execute();
    for (const r of found) states.set(r.session_id, JSON.parse(r.state) as AnalysisState);
  }
  for (const e of batch) {
    let s = states.get(e.sessionId);
    if (s === undefined) {
      s = initialAnalysis();
      states.set(e.sessionId, s);
    }
    stepAnalysis(s, e.message, e.fileIndex);
  }
  await rows.insert(
    "timeline_analysis",
    [...states].map(([session_id, s]) => ({ session_id, state: JSON.stringify(s) })),
    { columns: ["session_id"], update: ["state"] },
  );
}

/** One request of the viewer's statistics: its place, status, retry, usage and timing. */
export interface RequestAnalysis {
  n: number;
  task: number;
  fileIndex: number;
  status: string;
  attempt?: number;
  retryInMs?: number;
  error?: string;
  context: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
  /** cache_read / context, 0..1; undefined without usage. */
  cacheHitRate?: number;
  startedAt?: string;
  durationMs?: number;
  toolCalls: number;
}

/** The viewer's statistics (the server's `TraceAnalysis` adds `sessionId` and `files`). */
export interface RenderedAnalysis {
  model: { provider: string; modelId: string; contextWindow: number | "unknown" } | null;
  source: string | null;
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  totals: { requests: number; retries: number; toolCalls: number; compactions: number; cacheRead: number; cacheWrite: number; output: number; total: number; durationMs: number };
  tasks: { n: number; prompt: string | null; status: string; requests: number; steering: number; compactions: number; output: number; total: number }[];
  compactions: { task: number; reason: string; mode: string; contextTokens: number; status: string; error?: string }[];
  requests: RequestAnalysis[];
}

function taskStatus(t: TaskState, requests: readonly RequestState[]): string {
  if (t.abort !== undefined) return t.abort.startsWith("aborted") ? "aborted" : "failed";
  const last = t.requests[t.requests.length - 1];
  if (last !== undefined && requests[last]!.status === "open") return "running?";
  if (t.compactions.some((c) => c.status === "open")) return "running?";
  return "done";
}

export function renderAnalysis(stored: AnalysisState): RenderedAnalysis {
  // The end of the trace attaches a window still waiting (on a copy: the stored state moves with the events only).
  const s = JSON.parse(JSON.stringify(stored)) as AnalysisState;
  attach(s);
  const requests: RenderedAnalysis["requests"] = [];
  s.tasks.forEach((task, t) => {
    for (const index of task.requests) {
      const r = s.requests[index]!;
      const cacheRead = r.usage?.cache_read ?? 0;
      const cacheWrite = r.usage?.cache_write ?? 0;
      const context = cacheRead + cacheWrite;
      const row: RenderedAnalysis["requests"][number] = { n: requests.length + 1, task: t + 1, fileIndex: r.fileIndex, status: r.status, context, cacheRead, cacheWrite, output: r.usage?.output ?? 0, total: r.usage?.total ?? 0, toolCalls: r.toolCalls };
      if (r.attempt !== undefined) row.attempt = r.attempt;
      if (r.retryInMs !== undefined) row.retryInMs = r.retryInMs;
      if (r.error !== undefined) row.error = r.error;
      if (r.usage !== undefined && context > 0) row.cacheHitRate = cacheRead / context;
      row.startedAt = r.startedAt;
      if (r.durationMs !== undefined) row.durationMs = r.durationMs;
      requests.push(row);
    }
  });
  const tasks = s.tasks.map((task, i) => {
    const own = task.requests.map((index) => s.requests[index]!);
    return {
      n: i + 1,
      prompt: task.prompt,
      status: taskStatus(task, s.requests),
      requests: own.length,
      steering: task.steering,
      compactions: task.compactions.length,
      output: own.reduce((n, r) => n + (r.usage?.output ?? 0), 0),
      total: own.reduce((n, r) => n + (r.usage?.total ?? 0), 0),
    };
  });
  const compactions = s.tasks.flatMap((task, i) => task.compactions.map((c) => ({ task: i + 1, reason: c.reason, mode: c.mode, contextTokens: c.contextTokens, status: c.status, ...(c.error === undefined ? {} : { error: c.error }) })));
  const last = tasks[tasks.length - 1];
  return {
    model: s.meta === null ? null : { provider: s.meta.provider, modelId: s.meta.modelId, contextWindow: s.meta.contextWindow },
    source: s.meta?.source ?? null,
    status: last === undefined ? "empty" : last.status,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    totals: {
      requests: requests.length,
      retries: requests.filter((r) => r.retryInMs !== undefined).length,
      toolCalls: requests.reduce((n, r) => n + r.toolCalls, 0),
      compactions: compactions.length,
      cacheRead: s.usage.cache_read,
      cacheWrite: s.usage.cache_write,
      output: s.usage.output,
      total: s.usage.total,
      durationMs: requests.reduce((n, r) => n + (r.durationMs ?? 0), 0),
    },
    tasks,
    compactions,
    requests,
  };
}

/** A session's stored statistics, rendered; undefined when the projection has not seen it. */
export async function sessionAnalysis(db: Kysely<any>, sessionId: string): Promise<RenderedAnalysis | undefined> {
  const row = await (db as Kysely<AnalysisTables>).selectFrom("timeline_analysis").select("state").where("session_id", "=", sessionId).executeTakeFirst();
  return row === undefined ? undefined : renderAnalysis(JSON.parse(row.state) as AnalysisState);
}
