/**
 * Session history for `GET /api/sessions/:id/messages`, read from the trace files (every
 * index, oldest first) through core's tolerant reader, with positions `<fileIndex>:<line>`
 * for paging: `tailLimit` returns the newest N, `before=<fileIndex>:<line>&limit=N` the N
 * before a position. The trace is read up to the last record the session's stream has sent
 * (`upTo`), so the page and the stream meet exactly; see routes/session-messages.ts for how a
 * client stitches this to the stream.
 *
 * A page is read from the end of the files it needs (lastRecordsOf): only the lines of the
 * page are decoded, the rest is counted by its newlines. Opening a 100k-line session, or
 * paging back through it, no longer parses the whole trace for every page (a 50 MB trace
 * held the server's event loop for every user each time). A text longer than 4 MiB is cut
 * to its head and the record says so (`payload.cut`, with its position for the whole-record
 * route), so a 30 MB tool output is neither decoded nor sent with a page.
 */
import { DEFAULT_LINE_CUT, formatPosition, lastRecordsOf, placeCutRecord, sessionTraceFiles, type AgentPaths, type LineCutOptions, type TraceRecordIndexes } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";

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
  /** The position of the oldest message returned (null when the trace has none; `before` itself when nothing precedes it): pass it as `before`. */
  tracePosition: TracePosition | null;
  /** Older messages exist before `tracePosition`. */
  hasMore: boolean;
}

export const MAX_PAGE = 5000;

/** What a page is read up to: the stream's last record (inclusive) and the client's `before` (exclusive). */
interface Bounds {
  upTo?: { file: number; line: number } | undefined;
  before?: TracePosition | undefined;
}

/** The last line of `file` a page may hold under `bounds`: undefined for the file's end, 0 for none. */
function throughIn(fileIndex: number, bounds: Bounds): number | undefined {
  let through: number | undefined;
  if (bounds.upTo !== undefined) {
    if (fileIndex > bounds.upTo.file) return 0;
    if (fileIndex === bounds.upTo.file) through = bounds.upTo.line;
  }
  if (bounds.before !== undefined) {
    if (fileIndex > bounds.before.fileIndex) return 0;
    if (fileIndex === bounds.before.fileIndex) through = Math.min(through ?? Number.POSITIVE_INFINITY, bounds.before.line - 1);
  }
  return through;
}

/** The newest `count` trace messages within `bounds`, oldest first, and whether older ones exist. */
function newestWithin(agent: AgentPaths, sessionId: string, count: number, bounds: Bounds, cut: LineCutOptions): { entries: { position: TracePosition; message: OmniMessage }[]; more: boolean } {
  const files = sessionTraceFiles(agent, sessionId);
  const pages: { position: TracePosition; message: OmniMessage }[][] = [];
  let remaining = count;
  let more = false;
  for (let i = files.length - 1; i >= 0 && !more; i--) {
    const f = files[i]!;
    const through = throughIn(f.index, bounds);
    if (through !== undefined && through <= 0) continue;
    // Once the page is full, only whether an older record exists is left to know.
    // Long texts are cut to a head and a marker naming the record's position (cut-line.ts).
    const read = safely(() => lastRecordsOf(f.file, Math.max(remaining, 1), through, cut));
    if (read === undefined) continue;
    if (remaining === 0) {
      more = read.lines.length > 0;
      break;
    }
    for (const [k, message] of read.messages.entries()) placeCutRecord(message, formatPosition({ file: f.index, line: read.lines[k]! }));
    pages.unshift(read.messages.map((message, k) => ({ position: { fileIndex: f.index, line: read.lines[k]! }, message })));
    remaining -= read.messages.length;
    more = read.more;
  }
  return { entries: pages.flat(), more };
}

/**
 * A page: with `before`, the `limit` trace messages before that position (up to `upTo`);
 * otherwise the newest `tailLimit` trace messages up to `upTo`.
 */
export function readHistoryPage(agent: AgentPaths, sessionId: string, upTo: { file: number; line: number } | undefined, query: HistoryQuery): HistoryPage {
  return readHistory(agent, sessionId, upTo, query).page;
}

/**
 * Indexes the session's trace files in the server's record index (a slice per turn, long lines
 * cut as they are read) and answers the cut options that let the synchronous readers skip those
 * lines: what a route awaits before it reads history or time travel, so neither scans a 30 MB
 * line on the event loop.
 */
export async function prepareTraceCut(records: TraceRecordIndexes, agent: AgentPaths, sessionId: string): Promise<LineCutOptions> {
  for (const f of sessionTraceFiles(agent, sessionId)) await records.prepare(f.file).catch(() => undefined);
  return records.readerCut() ?? DEFAULT_LINE_CUT;
}

/**
 * `readHistoryPage`, and the position of the trace's last message up to `upTo` when asked
 * (`newest()`): a tail page already holds it, so only an older page reads the files again.
 */
export function readHistory(agent: AgentPaths, sessionId: string, upTo: { file: number; line: number } | undefined, query: HistoryQuery, cut: LineCutOptions = DEFAULT_LINE_CUT): { page: HistoryPage; newest: () => TracePosition | undefined } {
  if (query.before !== undefined) {
    const before = query.before;
    const { entries, more } = newestWithin(agent, sessionId, Math.min(query.limit ?? 100, MAX_PAGE), { upTo, before }, cut);
    return { page: { messages: entries.map((e) => e.message), tracePosition: entries[0]?.position ?? before, hasMore: more }, newest: () => lastTracePosition(agent, sessionId, upTo, cut) };
  }
  const { entries, more } = newestWithin(agent, sessionId, Math.min(query.tailLimit ?? MAX_PAGE, MAX_PAGE), { upTo }, cut);
  const newest = entries.at(-1)?.position;
  return { page: { messages: entries.map((e) => e.message), tracePosition: entries[0]?.position ?? null, hasMore: more }, newest: () => newest };
}

/** The position of the trace's last message up to `upTo` (undefined when it has none). */
export function lastTracePosition(agent: AgentPaths, sessionId: string, upTo?: { file: number; line: number }, cut: LineCutOptions = DEFAULT_LINE_CUT): TracePosition | undefined {
  return newestWithin(agent, sessionId, 1, { upTo }, cut).entries[0]?.position;
}

/** A read of a trace file that may be gone (a session deleted meanwhile): undefined then. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

export function parsePosition(text: string): TracePosition | undefined {
  const m = /^(\d+):(\d+)$/.exec(text);
  return m === null ? undefined : { fileIndex: Number(m[1]), line: Number(m[2]) };
}

function compare(a: TracePosition, b: TracePosition): number {
  return a.fileIndex - b.fileIndex || a.line - b.line;
}
