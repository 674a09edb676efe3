/**
 * The trace browser (SPEC §9 `A/traces…`): an agent's traced sessions (newest first), one
 * trace file as numbered envelopes (checked with `parseEnvelope`), and the download URL.
 */
import { parseEnvelope } from "@penguin/omnimessage";
import { get, withQuery } from "./http";
import { projectPath } from "./projects";
import { arr, asRecord, num, str } from "./read";
import type { TraceFilePage, TraceSessionEntry } from "./types";

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
    return message === undefined ? [] : [{ line: num(r, "line") ?? 0, message }];
  });
  return { lines, total: num(o, "total") ?? lines.length, nextOffset: num(o, "nextOffset") ?? null };
}

export const traceDownloadUrl = (p: string, a: string, sessionId: string) => `${tracesPath(p, a)}/${encodeURIComponent(sessionId)}/download`;
