/**
 * The trace browser (SPEC §9 `A/traces…`): an agent's traced sessions (newest first), one
 * trace file as numbered envelopes (checked with `parseEnvelope`) or as the outline time
 * travel lists its events by (`view=outline`: a few MB for a session of 50), the server's analysis
 * of a session (per-request figures, tasks, totals: computed once, on the server, with
 * core's trace summary), and the download URL.
 */
import { parseEnvelope } from "@penguin/omnimessage";
import { get, withQuery } from "./http";
import { projectPath } from "./projects";
import { arr, asRecord, num, str } from "./read";
import { recordCutOf } from "./time-travel";
import type { EventOutline, RequestAnalysis, TraceAnalysis, TraceFilePage, TraceOutlinePage, TraceSessionEntry } from "./types";

const tracesPath = (p: string, a: string) => `${projectPath(p)}/agents/${encodeURIComponent(a)}/traces`;

/** `session-YYYY-MM-DD-HH-mm-ss-<hex>` → `YYYY-MM-DD`. */
export function dateOfSession(sessionId: string): string {
  const m = /^session-(\d{4}-\d{2}-\d{2})-/.exec(sessionId);
  return m?.[1] ?? "unknown";
}

export async function listTraceSessions(p: string, a: string): Promise<TraceSessionEntry[]> {
  const o = asRecord(await get(withQuery(tracesPath(p, a), { limit: 5000 })));
  return arr(o, "sessions").flatMap((raw) => {
    const r = asRecord(raw);
    const sessionId = str(r, "sessionId");
    if (sessionId === undefined) return [];
    const files = arr(r, "files").map((f) => {
      const fr = asRecord(f);
      return { index: num(fr, "index") ?? 1, size: num(fr, "size") ?? 0 };
    });
    return [{ sessionId, date: dateOfSession(sessionId), mtimeMs: num(r, "mtimeMs") ?? 0, files }];
  });
}

export async function getTraceFile(p: string, a: string, sessionId: string, index: number, offset = 0, limit = 5000): Promise<TraceFilePage> {
  const o = asRecord(await get(withQuery(`${tracesPath(p, a)}/${encodeURIComponent(sessionId)}/${index}`, { offset, limit })));
  const lines = arr(o, "lines").flatMap((raw) => {
    const r = asRecord(raw);
    const message = parseEnvelope(r.message);
    if (message === undefined) return [];
    const cut = recordCutOf(r.message);
    return [{ line: num(r, "line") ?? 0, message, ...(cut === undefined ? {} : { cut }) }];
  });
  return { lines, total: num(o, "total") ?? lines.length, nextOffset: num(o, "nextOffset") ?? null };
}

const ENVELOPE_TYPES = new Set(["session_meta", "model_msg", "tool_msg", "event_msg"]);

/** An outline item as the server sends it; undefined for anything else (it is then left out, as a bad envelope is). */
function outlineOf(raw: unknown): EventOutline | undefined {
  const r = asRecord(raw);
  const type = str(r, "type");
  if (type === undefined || !ENVELOPE_TYPES.has(type)) return undefined;
  const p = asRecord(r.payload);
  const payload: EventOutline["payload"] = {};
  for (const key of ["type", "role", "name"] as const) {
    const value = str(p, key);
    if (value !== undefined) payload[key] = value;
  }
  return { type: type as EventOutline["type"], payload };
}

/** One page of a trace file's outline: each event's line, envelope type, and payload type, role and tool name. */
export async function getTraceOutline(p: string, a: string, sessionId: string, index: number, offset = 0, limit = 5000): Promise<TraceOutlinePage> {
  const o = asRecord(await get(withQuery(`${tracesPath(p, a)}/${encodeURIComponent(sessionId)}/${index}`, { offset, limit, view: "outline" })));
  const lines = arr(o, "lines").flatMap((raw) => {
    const r = asRecord(raw);
    const message = outlineOf(r.message);
    return message === undefined ? [] : [{ line: num(r, "line") ?? 0, message }];
  });
  return { lines, total: num(o, "total") ?? lines.length, nextOffset: num(o, "nextOffset") ?? null };
}

export const traceDownloadUrl = (p: string, a: string, sessionId: string) => `${tracesPath(p, a)}/${encodeURIComponent(sessionId)}/download`;

export async function getTraceAnalysis(p: string, a: string, sessionId: string): Promise<TraceAnalysis> {
  const o = asRecord(await get(`${tracesPath(p, a)}/${encodeURIComponent(sessionId)}/analysis`));
  const t = asRecord(o.totals);
  const requests = arr(o, "requests").map((raw): RequestAnalysis => {
    const r = asRecord(raw);
    const row: RequestAnalysis = {
      n: num(r, "n") ?? 0,
      task: num(r, "task") ?? 0,
      fileIndex: num(r, "fileIndex") ?? 1,
      status: str(r, "status") ?? "",
      context: num(r, "context") ?? 0,
      cacheRead: num(r, "cacheRead") ?? 0,
      cacheWrite: num(r, "cacheWrite") ?? 0,
      output: num(r, "output") ?? 0,
      toolCalls: num(r, "toolCalls") ?? 0,
    };
    const attempt = num(r, "attempt");
    const retryInMs = num(r, "retryInMs");
    const error = str(r, "error");
    const cacheHitRate = num(r, "cacheHitRate");
    const durationMs = num(r, "durationMs");
    if (attempt !== undefined) row.attempt = attempt;
    if (retryInMs !== undefined) row.retryInMs = retryInMs;
    if (error !== undefined) row.error = error;
    if (cacheHitRate !== undefined) row.cacheHitRate = cacheHitRate;
    if (durationMs !== undefined) row.durationMs = durationMs;
    return row;
  });
  return {
    status: str(o, "status") ?? "",
    requests,
    tasks: arr(o, "tasks").map((raw) => {
      const r = asRecord(raw);
      return { n: num(r, "n") ?? 0, prompt: str(r, "prompt") ?? null, status: str(r, "status") ?? "", requests: num(r, "requests") ?? 0, steering: num(r, "steering") ?? 0, compactions: num(r, "compactions") ?? 0 };
    }),
    compactions: arr(o, "compactions").map((raw) => {
      const r = asRecord(raw);
      return { task: num(r, "task") ?? 0, reason: str(r, "reason") ?? "", mode: str(r, "mode") ?? "", contextTokens: num(r, "contextTokens") ?? 0, status: str(r, "status") ?? "" };
    }),
    totals: { requests: num(t, "requests") ?? 0, retries: num(t, "retries") ?? 0, toolCalls: num(t, "toolCalls") ?? 0, compactions: num(t, "compactions") ?? 0, output: num(t, "output") ?? 0, total: num(t, "total") ?? 0, durationMs: num(t, "durationMs") ?? 0 },
  };
}
