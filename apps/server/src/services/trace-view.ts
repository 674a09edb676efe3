/**
 * Trace browsing shared by the agent and session trace routes: a session's files with their
 * sizes, one file as numbered envelopes (paged by record offset through the server's record
 * index, so a page of a 50 MB file decodes only its own lines) and the raw download.
 * Importing a trace is services/trace-import.ts.
 */
import { statSync } from "node:fs";
import { open as fsOpen, type FileHandle } from "node:fs/promises";
import { formatPosition, placeCutRecord, sessionTraceFiles, type AgentPaths, type TraceRecordIndexes } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { badRequest, notFound } from "../http/api-error.js";

export function traceFilesOf(agent: AgentPaths, sessionId: string): { index: number; size: number; path: string }[] {
  return sessionTraceFiles(agent, sessionId).map((f) => {
    let size = 0;
    try {
      size = statSync(f.file).size;
    } catch {
      size = 0;
    }
    return { index: f.index, size, path: f.file };
  });
}

/** What the outline view keeps of an envelope: what a time-travel scrubber names an event by. */
export interface EventOutline {
  type: OmniMessage["type"];
  payload: { type?: string; role?: string; name?: string };
}

/**
 * An envelope reduced to its outline: its type, and its payload's type, role and tool name.
 * Time travel lists every event of a session by these alone; a 100k-line session's outline is
 * a few MB where its envelopes are 50.
 */
export function outlineOf(m: OmniMessage): EventOutline {
  if (m.type === "session_meta") return { type: m.type, payload: {} };
  const p = m.payload as { type: string; role?: unknown; name?: unknown };
  const payload: EventOutline["payload"] = { type: p.type };
  if (typeof p.role === "string") payload.role = p.role;
  if (typeof p.name === "string") payload.name = p.name;
  return { type: m.type, payload };
}

/**
 * Records `offset` to `offset + limit` of one trace file of a session, numbered by line, read
 * through the server's record index; with `view: "outline"`, each reduced to its outline.
 */
export async function traceLines(records: TraceRecordIndexes, agent: AgentPaths, sessionId: string, index: number, offset: number, limit: number, view: "full" | "outline" = "full"): Promise<{ lines: { line: number; message: OmniMessage | EventOutline }[]; total: number; nextOffset: number | null }> {
  const file = sessionTraceFiles(agent, sessionId).find((f) => f.index === index);
  if (file === undefined) throw notFound(`trace ${sessionId} #${index}`);
  const page = await records.page(file.file, offset, limit);
  // A record whose long texts the index cut says where it is whole (routes/session-records.ts).
  for (const r of page.records) placeCutRecord(r.message, formatPosition({ file: index, line: r.line }));
  const lines = view === "outline" ? page.records.map((r) => ({ line: r.line, message: outlineOf(r.message) })) : page.records;
  return { lines, total: page.total, nextOffset: offset + limit < page.total ? offset + limit : null };
}

/**
 * Refuses a time-travel `at` that names no record of the session, from the server's record
 * index once `prepareTraceCut` has indexed the files (a slice per turn), before anything folds
 * or reads the session whole: a count past the session's records, a file the session does not
 * have, a line past a file's end or on a line that holds no record. A position on a file's
 * unterminated last line is left to the fold (it may hold a record still being written).
 */
export function refuseMissingRecord(records: TraceRecordIndexes, agent: AgentPaths, sessionId: string, at: number | string | undefined): void {
  if (at === undefined) return;
  const files = sessionTraceFiles(agent, sessionId);
  const known = files.map((f) => ({ index: f.index, file: f.file, indexed: records.indexed(f.file) }));
  if (known.some((k) => k.indexed === undefined)) return;
  if (typeof at === "number") {
    const total = known.reduce((n, k) => n + k.indexed!.records, 0);
    // The unterminated last line may hold one more record: the fold decides that one.
    if (at > total + 1) throw badRequest(`at ${at} is past the session's end: it has ${total} records (give 1 to ${total}, or a position NNN:LLLLLL)`, "at");
    return;
  }
  const [fileIndex, line] = at.split(":").map(Number) as [number, number];
  const hit = known.find((k) => k.index === fileIndex);
  if (hit === undefined) throw badRequest(`at ${at}: the session has no trace file ${String(fileIndex).padStart(3, "0")} (its files: ${known.map((k) => String(k.index).padStart(3, "0")).join(", ") || "none"})`, "at");
  if (line > hit.indexed!.lines + 1) throw badRequest(`at ${at} is past the end of trace file ${String(fileIndex).padStart(3, "0")}, which has ${hit.indexed!.lines} lines`, "at");
  if (line <= hit.indexed!.lines && records.holdsRecord(hit.file, line) === false) throw badRequest(`at ${at}: line ${line} of that file holds no record (a damaged line the reader skips)`, "at");
}

/** Bytes read from a trace file at a time while it is downloaded. */
const DOWNLOAD_CHUNK = 256 * 1024;

/**
 * One record of a session whole, as the bytes of its line (`NNN:LLLLLL`), streamed a chunk at a
 * time: what a cut record (cut-line.ts) says is left out. 404 when the line holds no record.
 */
export async function wholeRecord(records: TraceRecordIndexes, agent: AgentPaths, sessionId: string, at: { file: number; line: number }): Promise<Response> {
  const file = sessionTraceFiles(agent, sessionId).find((f) => f.index === at.file);
  if (file === undefined) throw notFound(`trace ${sessionId} #${at.file}`);
  const range = await records.recordBytes(file.file, at.line);
  if (range === undefined) throw notFound(`a record at ${formatPosition(at)} of session ${sessionId}`);
  return new Response(fileRange(file.file, range.start, range.end), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "content-length": String(range.end - range.start), "x-content-type-options": "nosniff" },
  });
}

/** Bytes `start` to `end` of a file, read a chunk at a time as the client takes them. */
function fileRange(path: string, start: number, end: number): ReadableStream<Uint8Array> {
  let handle: FileHandle | undefined;
  let at = start;
  const close = async (): Promise<void> => {
    const h = handle;
    handle = undefined;
    await h?.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          handle ??= await fsOpen(path, "r");
          const want = Math.min(DOWNLOAD_CHUNK, end - at);
          const chunk = new Uint8Array(want);
          const { bytesRead } = await handle.read(chunk, 0, want, at);
          if (bytesRead === 0) throw new Error(`the trace file ${path} ended before the record did`);
          at += bytesRead;
          controller.enqueue(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
          if (at >= end) {
            await close();
            controller.close();
          }
        } catch (error) {
          await close().catch(() => undefined);
          throw error;
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

/**
 * The session's trace files one after the other, as a stream read a chunk at a time as the
 * client takes it (the HTTP layer waits for the socket to drain): a 50 MB trace is not held
 * in memory per download, and a file still being written is read to where it ends then.
 */
function concatenatedFiles(files: readonly string[]): ReadableStream<Uint8Array> {
  let next = 0;
  let open: FileHandle | undefined;
  const close = async (): Promise<void> => {
    const handle = open;
    open = undefined;
    await handle?.close();
  };
  /** The next chunk of bytes, from the open file or the next one; closes the stream after the last. */
  const pullChunk = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    for (;;) {
      if (open === undefined) {
        if (next >= files.length) {
          controller.close();
          return;
        }
        open = await fsOpen(files[next++]!, "r");
      }
      const chunk = new Uint8Array(DOWNLOAD_CHUNK);
      const { bytesRead } = await open.read(chunk, 0, DOWNLOAD_CHUNK, null);
      if (bytesRead > 0) {
        controller.enqueue(bytesRead === DOWNLOAD_CHUNK ? chunk : chunk.subarray(0, bytesRead));
        return;
      }
      await close();
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await pullChunk(controller);
        } catch (error) {
          // A file gone mid-download: the stream fails (the HTTP layer ends the socket), no handle is left open.
          await close().catch(() => undefined);
          throw error;
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

export function traceDownload(agent: AgentPaths, sessionId: string): Response {
  const files = sessionTraceFiles(agent, sessionId);
  if (files.length === 0) throw notFound(`trace ${sessionId}`);
  const body = concatenatedFiles(files.map((f) => f.file));
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/x-ndjson", "content-disposition": `attachment; filename="${sessionId}.jsonl"`, "x-content-type-options": "nosniff" },
  });
}
