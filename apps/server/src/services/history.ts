/**
 * Session history for `GET /api/sessions/:id/messages`, read from the trace files (every
 * index, oldest first) through core's tolerant parser, with positions `<fileIndex>:<line>`
 * for paging: `tailLimit` returns the newest N, `before=<fileIndex>:<line>&limit=N` the N
 * before a position. The trace is read up to the last record the session's stream has sent
 * (`upTo`), so the page and the stream meet exactly; see routes/session-messages.ts for how a
 * client stitches this to the stream.
 */
import { readFileSync } from "node:fs";
import { sessionTraceFiles, type AgentPaths } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { numberedMessages } from "./trace-files.js";

export interface TracePosition {
  fileIndex: number;
  line: number;
}

export interface HistoryQuery {
  tailLimit?: number | undefined;
  before?: TracePosition | undefined;
  limit?: number | undefined;
}

export interface HistoryPage {
  messages: OmniMessage[];
  /** The position of the oldest message returned (or just past the trace when only live ones were): pass it as `before`. */
  tracePosition: TracePosition | null;
  /** Older messages exist before `tracePosition`. */
  hasMore: boolean;
}

export const MAX_PAGE = 5000;

export function readTraceEntries(agent: AgentPaths, sessionId: string, upTo?: { file: number; line: number }): { position: TracePosition; message: OmniMessage }[] {
  const out: { position: TracePosition; message: OmniMessage }[] = [];
  for (const f of sessionTraceFiles(agent, sessionId)) {
    if (upTo !== undefined && f.index > upTo.file) continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(f.file);
    } catch {
      continue;
    }
    for (const { line, message } of numberedMessages(bytes.toString("utf8"))) {
      if (upTo !== undefined && f.index === upTo.file && line > upTo.line) break;
      out.push({ position: { fileIndex: f.index, line }, message });
    }
  }
  return out;
}

/**
 * A page: with `before`, the `limit` trace messages before that position (live messages are
 * never older than the trace, so they are not part of older pages); otherwise the newest
 * `tailLimit` trace messages followed by every live message of the running task.
 */
export function pageHistory(trace: { position: TracePosition; message: OmniMessage }[], live: OmniMessage[], query: HistoryQuery): HistoryPage {
  if (query.before !== undefined) {
    const before = query.before;
    let end = trace.findIndex((e) => compare(e.position, before) >= 0);
    if (end < 0) end = trace.length;
    const start = Math.max(0, end - Math.min(query.limit ?? 100, MAX_PAGE));
    return { messages: trace.slice(start, end).map((e) => e.message), tracePosition: trace[start]?.position ?? before, hasMore: start > 0 };
  }
  const start = Math.max(0, trace.length - Math.min(query.tailLimit ?? MAX_PAGE, MAX_PAGE));
  const last = trace[trace.length - 1]?.position;
  const pastEnd = last === undefined ? null : { fileIndex: last.fileIndex, line: last.line + 1 };
  return { messages: [...trace.slice(start).map((e) => e.message), ...live], tracePosition: trace[start]?.position ?? pastEnd, hasMore: start > 0 };
}

export function parsePosition(text: string): TracePosition | undefined {
  const m = /^(\d+):(\d+)$/.exec(text);
  return m === null ? undefined : { fileIndex: Number(m[1]), line: Number(m[2]) };
}

function compare(a: TracePosition, b: TracePosition): number {
  return a.fileIndex - b.fileIndex || a.line - b.line;
}
