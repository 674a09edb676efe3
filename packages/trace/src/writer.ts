/**
 * TraceWriter: the append-only JSONL record of a session, one OmniMessage envelope per line.
 *
 * Durability rule: each record is one `write` of a complete line, and the file
 * is synced after every `request_end`, every `tool_call_output` and every compaction event,
 * so a crash loses at most the uncommitted tail of the current request. The sync is
 * fdatasync: it makes the appended bytes and the new file size durable, which is all an
 * append-only file needs, without also flushing timestamps.
 *
 * Other rules kept here:
 * - Only traceable messages are written: no `partial_*`, nothing forwarded from a child
 *   (`origin` set). Callers may pass everything; the writer filters.
 * - Files are created lazily: the header (`session_meta`, then `tool_list_ready` once known)
 *   is written just before the first record, so a session that never ran leaves no file.
 *   A new session's first file may also open with `opening` records right after its
 *   `session_meta` (the starting settings), so they are in the trace from its first lines.
 * - Opening an existing file whose last line is torn (a crash mid-write, NUL padding) starts
 *   the next record on a fresh line; history is never rewritten.
 * - Compaction rotates to the next index (`_002`, `_003`…), again lazily, and the new file
 *   starts with `session_meta` and `tool_list_ready`.
 *
 * - Timestamps never decrease within a file: every envelope is stamped when it is appended
 *   (the writer's clock, held at the last stamp if the clock steps back), not when its
 *   producer built it. Producers build envelopes ahead of recording them (the user's text is
 *   built before the `request_begin` that precedes it in the file), so their times are not in
 *   file order. The stamp is set on the envelope itself, so the host that sees the message
 *   live and a reader of the file see the same time; nothing needs the producer's time, so it
 *   is not kept. On resume the last stamp of the existing file is the floor.
 * - Every line has a position (file index, line number; position.ts). The writer counts the
 *   lines of the file it appends to, so listeners (`onAppend`) get each record's position,
 *   and they get it only once the record is written, and synced when it is a commit point:
 *   a subscriber never sees a record a crash could still take back.
 *
 * Writes are synchronous on purpose: records must hit the file in exactly the order the host
 * sees them, and a commit point must be durable before the engine moves on.
 */
import { closeSync, fdatasyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { TracePosition } from "./position.js";
import {
  isEvent,
  isTraceable,
  sessionMeta as buildSessionMeta,
  toolListReady,
  type OmniMessage,
  type SessionMetaPayload,
  type ToolDefinition,
} from "@penguin/omnimessage";

/** Where the writer puts a given file index. */
export type TraceFileNamer = (index: number) => string;

export interface TraceWriterOptions {
  fileFor: TraceFileNamer;
  /** The index of the file to write (1 for a new session; the highest existing one on resume). */
  index: number;
  meta: SessionMetaPayload;
  /** True when `fileFor(index)` already exists with its header (resume). */
  existing: boolean;
  /** Set when resuming a file whose header already holds the tool list. */
  toolsWritten?: boolean;
  /** Records written once, right after the first header (a new session's starting settings); ignored when `existing`. */
  opening?: OmniMessage[];
  /** Disable fsync (benchmarks of the raw append path). Default true. */
  fsync?: boolean;
  /** The clock that stamps appended envelopes, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

const COMMIT_EVENTS = new Set(["request_end", "compaction_begin", "compaction_end"]);

/** True for the records after which the file must be durable. */
export function isCommitPoint(m: OmniMessage): boolean {
  if (m.type === "model_msg") return m.payload.type === "tool_call_output";
  return isEvent(m) && COMMIT_EVENTS.has(m.payload.type);
}

/** Called after a record is durable, with its position. */
export type AppendListener = (m: OmniMessage, position: TracePosition) => void;

export class TraceWriter {
  readonly #fileFor: TraceFileNamer;
  readonly #fsync: boolean;
  #index: number;
  #meta: SessionMetaPayload;
  #fd: number | undefined;
  #headerWritten: boolean;
  #tools: ToolDefinition[] | undefined;
  #toolsWritten: boolean;
  /** Still to be written after the next header (only ever the first file's). */
  #opening: OmniMessage[];
  #needsNewline = false;
  readonly #now: () => number;
  /** The last stamp written (epoch ms), kept across rotation; -Infinity before the first. */
  #lastStampMs = Number.NEGATIVE_INFINITY;
  /** Lines in the current file so far (a torn last line counts: the next record follows it). */
  #lines: number | undefined;
  readonly #listeners = new Set<AppendListener>();

  constructor(options: TraceWriterOptions) {
    this.#fileFor = options.fileFor;
    this.#now = options.now ?? Date.now;
    this.#fsync = options.fsync ?? true;
    this.#index = options.index;
    this.#meta = options.meta;
    this.#headerWritten = options.existing;
    this.#toolsWritten = options.toolsWritten ?? false;
    this.#opening = options.existing ? [] : [...(options.opening ?? [])];
  }

  /** The file currently written (or about to be). */
  get file(): string {
    return this.#fileFor(this.#index);
  }

  get index(): number {
    return this.#index;
  }

  /** The position the next record will get (its file is opened, and counted, if needed). */
  nextPosition(): TracePosition {
    this.#open();
    return { file: this.#index, line: (this.#lines ?? 0) + 1 };
  }

  /** Listen to durable appends; returns the unsubscribe function. */
  onAppend(listener: AppendListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True once this file has a record on disk. */
  get started(): boolean {
    return this.#headerWritten;
  }

  /**
   * Record the tool list. Written as `tool_list_ready` right after the header of the current
   * file (at once if the file has started), and again at the head of every rotated file.
   */
  setTools(tools: ToolDefinition[]): void {
    this.#tools = tools;
    if (this.#headerWritten && !this.#toolsWritten) {
      const m = toolListReady(tools);
      const position = this.#writeLine(m);
      this.#toolsWritten = true;
      this.#publish(m, position);
    }
  }

  /** Append one message if it belongs in the Trace. */
  append(m: OmniMessage): void {
    if (!isTraceable(m) || m.type === "session_meta") return;
    this.#ensureHeader();
    if (isEvent(m, "tool_list_ready")) {
      if (this.#toolsWritten) return;
      this.#toolsWritten = true;
    }
    const position = this.#writeLine(m);
    if (this.#fsync && isCommitPoint(m) && this.#fd !== undefined) fdatasyncSync(this.#fd);
    this.#publish(m, position);
  }

  /**
   * Write the header now instead of before the first record: a host that lists sessions
   * (the server) needs a session that has not run yet to exist on disk and be resumable.
   */
  start(): void {
    this.#ensureHeader();
    if (this.#fd !== undefined && this.#fsync) fdatasyncSync(this.#fd);
  }

  /** Continue in the next file index; its header is written before its first record. */
  rotate(meta?: SessionMetaPayload): void {
    this.close();
    this.#index += 1;
    if (meta !== undefined) this.#meta = meta;
    this.#headerWritten = false;
    this.#toolsWritten = false;
    this.#lines = undefined;
  }

  close(): void {
    if (this.#fd !== undefined) {
      closeSync(this.#fd);
      this.#fd = undefined;
    }
  }

  #ensureHeader(): void {
    if (this.#headerWritten) return;
    this.#headerWritten = true;
    const meta = buildSessionMeta(this.#meta);
    const metaPosition = this.#writeLine(meta);
    this.#publish(meta, metaPosition);
    for (const m of this.#opening.splice(0)) this.#publish(m, this.#writeLine(m));
    if (this.#tools !== undefined) {
      const tools = toolListReady(this.#tools);
      const toolsPosition = this.#writeLine(tools);
      this.#toolsWritten = true;
      this.#publish(tools, toolsPosition);
    }
  }

  #open(): number {
    if (this.#fd === undefined) {
      const file = this.#fileFor(this.#index);
      mkdirSync(dirname(file), { recursive: true });
      // A file left by a crash may end in a torn line (even a rotated file killed while its
      // header was being written): the next record starts on a fresh line.
      const existing = existingLines(file);
      this.#needsNewline = !existing.endsWithNewline;
      this.#lines = existing.lines;
      this.#lastStampMs = Math.max(this.#lastStampMs, existing.lastStampMs);
      this.#fd = openSync(file, "a", 0o600);
    }
    return this.#fd;
  }

  #writeLine(m: OmniMessage): TracePosition {
    const fd = this.#open();
    this.#lastStampMs = Math.max(this.#now(), this.#lastStampMs);
    m.timestamp = new Date(this.#lastStampMs).toISOString();
    const prefix = this.#needsNewline ? "\n" : "";
    writeFully(fd, Buffer.from(`${prefix}${JSON.stringify(m)}\n`, "utf8"));
    // The newline prefix only ends a torn line; the record is the next line either way.
    this.#lines = (this.#lines ?? 0) + 1;
    this.#needsNewline = false;
    return { file: this.#index, line: this.#lines };
  }

  #publish(m: OmniMessage, position: TracePosition): void {
    for (const listener of this.#listeners) listener(m, position);
  }
}

/** One logical write of the whole buffer (looping only if the OS takes it in parts). */
function writeFully(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * How many lines a file already has, counted the way the reader numbers them, whether it
 * ends on a line boundary, and the timestamp (epoch ms) of its last readable line (the floor
 * for the next stamp; -Infinity if none). Read once, when the writer first opens the file.
 */
function existingLines(file: string): { lines: number; endsWithNewline: boolean; lastStampMs: number } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return { lines: 0, endsWithNewline: true, lastStampMs: Number.NEGATIVE_INFINITY };
  }
  if (buf.length === 0) return { lines: 0, endsWithNewline: true, lastStampMs: Number.NEGATIVE_INFINITY };
  let newlines = 0;
  for (let at = buf.indexOf(0x0a); at >= 0; at = buf.indexOf(0x0a, at + 1)) newlines++;
  const endsWithNewline = buf[buf.length - 1] === 0x0a;
  return { lines: newlines + (endsWithNewline ? 0 : 1), endsWithNewline, lastStampMs: lastTimestampMs(buf) };
}

/** The timestamp of the last line that has one, looking at the file's last 64 KiB only. */
function lastTimestampMs(buf: Buffer): number {
  const lines = buf.subarray(Math.max(0, buf.length - 65536)).toString("utf8").split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /"timestamp":"([^"]+)"/.exec(lines[i] ?? "");
    const ms = match === null ? Number.NaN : Date.parse(match[1] ?? "");
    if (!Number.isNaN(ms)) return ms;
  }
  return Number.NEGATIVE_INFINITY;
}
