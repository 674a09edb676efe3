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
 * How the two halves of that are split:
 * - Writes are synchronous: records hit the file in exactly the order the host produces
 *   them, and each record's position is known the moment it is appended.
 * - Syncs are not: an fdatasync takes milliseconds, and on the event loop it stalls every
 *   other session of the process (the server streams hundreds at once). A commit point
 *   starts `fs.fdatasync` on libuv's threadpool and the writer goes on appending. One sync
 *   is in flight at a time; commit points appended meanwhile are covered by the next one,
 *   started when it returns, which makes durable everything written before it starts.
 * - Listeners are called in file order. A record waits in `#unpublished` behind any commit
 *   point not yet durable (records after it in the file are only published after it); a
 *   commit point leaves it when a sync started after its write completes.
 * - `onWrite` listeners are the other kind: called synchronously for each record the moment
 *   its line is written, before any sync. The session's live fold follows the writer
 *   through them, because the engine records a message and reads the folded state in the
 *   same step; it knows what it wrote, durable or not. Nothing that others can observe
 *   (subscribers, SSE, the host) hangs off them.
 * - `onDurable` listeners hear the position of the last record a completed sync covers (what
 *   another reader of the file may now rely on: a cluster node announces it to the others, who
 *   read the lines up to it). While one listens, every record starts a background sync (one
 *   in flight at a time, the next covering all written meanwhile), not only commit points, so
 *   the durable position follows the writes closely.
 * - A caller that must know a commit point is durable before it goes on awaits
 *   `published()` (Session does before it hands a commit point to its host, so a turn is
 *   never reported done before it is on disk) or `flush()` (all written bytes). `rotate()`
 *   and `close()` are synchronous and make the file durable before they return (a sync on the
 *   event loop, but once per file or session, not per turn); a file's descriptor is closed
 *   only after a sync still running on it has returned.
 */
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { readRange } from "./file-range.js";
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

/** Makes a file's written data durable off the event loop, then calls back (Node's `fs.fdatasync` shape). */
export type BackgroundSync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export interface TraceWriterOptions {
  fileFor: TraceFileNamer;
  /** The index of the file to write (1 for a new session; the highest existing one on resume). */
  index: number;
  meta: SessionMetaPayload;
  /** True when `fileFor(index)` already exists with its header (resume). */
  existing: boolean;
  /** Set when resuming a file whose header already holds the tool list. */
  toolsWritten?: boolean;
  /**
   * What the caller has just read of the existing file: its bytes through the last newline
   * and the lines in them (a resume's read). Used only while the file's size still equals
   * those bytes (then the file ends on a line boundary and its lines are known); otherwise the
   * writer counts the file itself.
   */
  knownExtent?: { bytes: number; lines: number };
  /** Records written once, right after the first header (a new session's starting settings); ignored when `existing`. */
  opening?: OmniMessage[];
  /** Disable fsync (benchmarks of the raw append path). Default true. */
  fsync?: boolean;
  /** The clock that stamps appended envelopes, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * The sync run for commit points, off the event loop. Default `fs.fdatasync` (libuv's
   * threadpool). Tests pass one whose completion they control.
   */
  backgroundSync?: BackgroundSync;
}

const COMMIT_EVENTS = new Set(["request_end", "compaction_begin", "compaction_end"]);

/** True for the records after which the file must be durable. */
export function isCommitPoint(m: OmniMessage): boolean {
  if (m.type === "model_msg") return m.payload.type === "tool_call_output";
  return isEvent(m) && COMMIT_EVENTS.has(m.payload.type);
}

/** Called after a record is durable, with its position. */
export type AppendListener = (m: OmniMessage, position: TracePosition) => void;

/** Called after a sync with the position of the last record it made durable. */
export type DurableListener = (through: TracePosition) => void;

/** A record written and not yet handed to the listeners. */
interface Unpublished {
  m: OmniMessage;
  position: TracePosition;
  /** Its write number; a commit point is published once `#durableThrough` reaches it. */
  seq: number;
  commit: boolean;
}

/** Someone waiting for every record up to `seq` to be durable (`durable`) or published. */
interface Waiter {
  seq: number;
  durable: boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class TraceWriter {
  readonly #fileFor: TraceFileNamer;
  readonly #fsync: boolean;
  readonly #backgroundSync: BackgroundSync;
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
  readonly #writeListeners = new Set<AppendListener>();
  readonly #durableListeners = new Set<DurableListener>();
  /** The position of the last record written (undefined before any). */
  #lastPosition: TracePosition | undefined;
  /** Records written so far (over every file of this writer): the last record's write number. */
  #written = 0;
  /** Every record numbered up to this one is durable (a completed sync started after its write). */
  #durableThrough = 0;
  /** Written, in file order, not yet published. */
  readonly #unpublished: Unpublished[] = [];
  /** The descriptor a background sync is running on, if one is. */
  #syncingFd: number | undefined;
  /** A commit point was written while a sync was running: start another when it returns. */
  #syncAgain = false;
  /** Descriptors closed by the writer whose close waits for the background sync running on them. */
  readonly #closeAfterSync = new Set<number>();
  readonly #waiters: Waiter[] = [];
  /** A background sync failed: what was written since its start is not known to be durable. */
  #failure: Error | undefined;
  readonly #knownExtent: { bytes: number; lines: number } | undefined;

  constructor(options: TraceWriterOptions) {
    this.#fileFor = options.fileFor;
    this.#now = options.now ?? Date.now;
    this.#fsync = options.fsync ?? true;
    this.#backgroundSync = options.backgroundSync ?? fdatasync;
    this.#index = options.index;
    this.#meta = options.meta;
    this.#headerWritten = options.existing;
    this.#toolsWritten = options.toolsWritten ?? false;
    this.#opening = options.existing ? [] : [...(options.opening ?? [])];
    this.#knownExtent = options.existing ? options.knownExtent : undefined;
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

  /**
   * Listen to every record as it is written, in file order, before it is synced (see the
   * file comment: for the writer's own session, never for subscribers). Returns the
   * unsubscribe function.
   */
  onWrite(listener: AppendListener): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  /**
   * Listen to the durable position: after each completed sync, the position of the last record
   * it covers (at once after each write when syncing is off). While any listens, every record
   * starts a background sync. Returns the unsubscribe function.
   */
  onDurable(listener: DurableListener): () => void {
    this.#durableListeners.add(listener);
    return () => this.#durableListeners.delete(listener);
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
      this.#throwIfFailed();
      const m = toolListReady(tools);
      const position = this.#writeLine(m);
      this.#toolsWritten = true;
      this.#queue(m, position, false);
      this.#publishReady();
    }
  }

  /**
   * Append one message if it belongs in the Trace; answers its position (undefined when it
   * does not belong). The record is on file when this returns; its listeners are called now,
   * or, behind a commit point not yet durable (this one included), when that sync completes.
   */
  append(m: OmniMessage): TracePosition | undefined {
    if (!isTraceable(m) || m.type === "session_meta") return undefined;
    this.#throwIfFailed();
    this.#ensureHeader();
    if (isEvent(m, "tool_list_ready")) {
      if (this.#toolsWritten) return undefined;
      this.#toolsWritten = true;
    }
    const position = this.#writeLine(m);
    const commit = this.#fsync && isCommitPoint(m);
    this.#queue(m, position, commit);
    if (commit || (this.#fsync && this.#durableListeners.size > 0)) this.#requestSync();
    this.#publishReady();
    if (!this.#fsync) this.#tellDurable(position);
    return position;
  }

  /**
   * Resolves once every record appended so far has been handed to the listeners, so every
   * commit point among them is durable. What follows the last commit point is not synced for it.
   */
  published(): Promise<void> {
    return this.#wait(this.#written, false);
  }

  /** Resolves once everything appended so far is durable (synced) and published. */
  flush(): Promise<void> {
    const seq = this.#written;
    const promise = this.#wait(seq, true);
    if (this.#fsync && this.#durableThrough < seq) this.#requestSync();
    return promise;
  }

  /**
   * Write the header now instead of before the first record: a host that lists sessions
   * (the server) needs a session that has not run yet to exist on disk and be resumable.
   * Its sync runs in the background (`flush()` waits for it).
   */
  start(): void {
    this.#ensureHeader();
    if (this.#fsync && this.#fd !== undefined) this.#requestSync();
    this.#publishReady();
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

  /**
   * Make everything written durable (a sync on the event loop, unless a completed sync already
   * covers it), publish what was waiting for it, and close the file. The descriptor itself is
   * closed when a background sync still running on it returns.
   */
  close(): void {
    const fd = this.#fd;
    if (fd === undefined) {
      this.#publishReady();
      return;
    }
    this.#fd = undefined;
    try {
      if (this.#fsync && this.#durableThrough < this.#written) {
        fdatasyncSync(fd);
        this.#durableThrough = this.#written;
        this.#failure = undefined;
        if (this.#lastPosition !== undefined) this.#tellDurable(this.#lastPosition);
      }
    } finally {
      if (this.#syncingFd === fd) this.#closeAfterSync.add(fd);
      else closeSync(fd);
    }
    this.#publishReady();
  }

  #ensureHeader(): void {
    if (this.#headerWritten) return;
    this.#headerWritten = true;
    try {
      this.#writeHeader();
    } catch (error) {
      // No file could be made (or the first record's write was undone): the next try starts it.
      if (this.#fd === undefined) {
        this.#headerWritten = false;
        this.#toolsWritten = false;
      }
      throw error;
    }
  }

  #writeHeader(): void {
    const meta = buildSessionMeta(this.#meta);
    this.#queue(meta, this.#writeLine(meta), false);
    for (const m of this.#opening.splice(0)) this.#queue(m, this.#writeLine(m), false);
    if (this.#tools !== undefined) {
      const tools = toolListReady(this.#tools);
      const toolsPosition = this.#writeLine(tools);
      this.#toolsWritten = true;
      this.#queue(tools, toolsPosition, false);
    }
  }

  #open(): number {
    if (this.#fd === undefined) {
      const file = this.#fileFor(this.#index);
      let fd: number;
      try {
        mkdirSync(dirname(file), { recursive: true });
        fd = openSync(file, "a", 0o600);
      } catch (error) {
        throw new TraceWriteError(file, error);
      }
      // A file left by a crash may end in a torn line (even a rotated file killed while its
      // header was being written): the next record starts on a fresh line.
      const existing = existingLines(file, this.#knownExtent);
      this.#needsNewline = !existing.endsWithNewline;
      this.#lines = existing.lines;
      this.#lastStampMs = Math.max(this.#lastStampMs, existing.lastStampMs);
      this.#fd = fd;
    }
    return this.#fd;
  }

  #writeLine(m: OmniMessage): TracePosition {
    const fd = this.#open();
    this.#lastStampMs = Math.max(this.#now(), this.#lastStampMs);
    m.timestamp = new Date(this.#lastStampMs).toISOString();
    const prefix = this.#needsNewline ? "\n" : "";
    const buf = Buffer.from(`${prefix}${JSON.stringify(m)}\n`, "utf8");
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    } catch (error) {
      throw this.#undoPartialWrite(fd, off, error);
    }
    // The newline prefix only ends a torn line; the record is the next line either way.
    this.#lines = (this.#lines ?? 0) + 1;
    this.#needsNewline = false;
    this.#written += 1;
    const position = { file: this.#index, line: this.#lines };
    this.#lastPosition = position;
    for (const listener of this.#writeListeners) listener(m, position);
    return position;
  }

  /**
   * A write that failed part way (a full disk) leaves no torn record: the file is cut back to
   * where the record began, so every record before it stays whole, and a file that held
   * nothing else is removed (a session created on a full disk leaves no empty trace behind;
   * its header is written again on the next try). Answers the error to throw: it names the
   * file, says what happened, and keeps the errno `code` and the `path`.
   */
  #undoPartialWrite(fd: number, written: number, error: unknown): TraceWriteError {
    const file = this.file;
    try {
      const size = fstatSync(fd).size - written;
      ftruncateSync(fd, size);
      if (size === 0) {
        this.#fd = undefined;
        if (this.#syncingFd === fd) this.#closeAfterSync.add(fd);
        else closeSync(fd);
        unlinkSync(file);
        this.#headerWritten = false;
        this.#toolsWritten = false;
        this.#lines = undefined;
      }
    } catch {
      // The cut itself failed: the reader skips a torn line, so history still reads.
    }
    return new TraceWriteError(file, error);
  }

  #queue(m: OmniMessage, position: TracePosition, commit: boolean): void {
    this.#unpublished.push({ m, position, seq: this.#written, commit });
  }

  /** Start a background sync of the current file, or have one start when the running one returns. */
  #requestSync(): void {
    if (this.#syncingFd !== undefined) {
      this.#syncAgain = true;
      return;
    }
    const fd = this.#fd;
    if (fd === undefined) return;
    // Everything written before the sync starts is durable once it completes.
    const covers = this.#written;
    const through = this.#lastPosition;
    this.#syncingFd = fd;
    this.#syncAgain = false;
    this.#backgroundSync(fd, (error) => this.#synced(fd, covers, error, through));
  }

  #synced(fd: number, covers: number, error: NodeJS.ErrnoException | null, through?: TracePosition): void {
    this.#syncingFd = undefined;
    if (this.#closeAfterSync.delete(fd)) closeSync(fd);
    if (error !== null) {
      // Leave what it covered unpublished: a later sync (close, the next commit point) may still succeed.
      this.#failure = new Error(`the trace file ${this.file} could not be synced to disk (${error.message}); its last records may not be durable`);
      this.#rejectWaiters(this.#failure);
    } else {
      const advanced = covers > this.#durableThrough;
      this.#durableThrough = Math.max(this.#durableThrough, covers);
      if (advanced && through !== undefined) this.#tellDurable(through);
    }
    this.#publishReady();
    if (this.#syncAgain && error === null && this.#durableThrough < this.#written) this.#requestSync();
    else this.#syncAgain = false;
  }

  #tellDurable(through: TracePosition): void {
    for (const listener of this.#durableListeners) listener(through);
  }

  /** Publish, in order, every record not behind a commit point still waiting for its sync; then answer waiters. */
  #publishReady(): void {
    while (this.#unpublished.length > 0) {
      const next = this.#unpublished[0]!;
      if (next.commit && next.seq > this.#durableThrough) break;
      this.#unpublished.shift();
      for (const listener of this.#listeners) listener(next.m, next.position);
    }
    if (this.#waiters.length === 0) return;
    const publishedThrough = this.#unpublished.length === 0 ? this.#written : this.#unpublished[0]!.seq - 1;
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i]!;
      if (w.seq > publishedThrough || (w.durable && this.#fsync && w.seq > this.#durableThrough)) continue;
      this.#waiters.splice(i, 1);
      w.resolve();
    }
  }

  #wait(seq: number, durable: boolean): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ seq, durable, resolve, reject });
      this.#publishReady();
    });
  }

  #rejectWaiters(error: Error): void {
    for (const w of this.#waiters.splice(0)) w.reject(error);
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }
}

/**
 * A record that could not be appended. The message names the file and, for a full disk or a
 * read-only file system, says so in words a person acts on; `code` (ENOSPC, EROFS…) and
 * `path` are kept so a host can answer with the right status.
 */
export class TraceWriteError extends Error {
  readonly code: string | undefined;
  readonly path: string;

  constructor(file: string, cause: unknown) {
    const code = typeof (cause as { code?: unknown })?.code === "string" ? (cause as { code: string }).code : undefined;
    const detail = cause instanceof Error ? cause.message : String(cause);
    const what =
      code === "ENOSPC" || code === "EDQUOT"
        ? `no space left on the device holding the trace file ${file}; the records before this one are kept: free some space, then resume the session`
        : code === "EROFS"
          ? `the trace file ${file} is on a read-only file system; nothing more can be recorded until it is writable again`
          : `could not write the trace file ${file} (${detail}); the records before this one are kept`;
    super(what, { cause });
    this.name = "TraceWriteError";
    this.code = code;
    this.path = file;
  }
}

/** The chunk `existingLines` reads a file in (reused: a 50 MB trace is never held whole). */
const SCAN_CHUNK_BYTES = 1 << 20;
/** How far back from a file's end `existingLines` looks for the last timestamp. */
const STAMP_TAIL_BYTES = 65536;

/**
 * How many lines a file already has, counted the way the reader numbers them, whether it
 * ends on a line boundary, and the timestamp (epoch ms) of its last readable line (the floor
 * for the next stamp; -Infinity if none). Read once, when the writer first opens the file,
 * through one reused chunk: resuming a long session opens a long file, and reading it whole
 * again would cost as much as the resume's own read.
 */
function existingLines(file: string, known: { bytes: number; lines: number } | undefined): { lines: number; endsWithNewline: boolean; lastStampMs: number } {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return { lines: 0, endsWithNewline: true, lastStampMs: Number.NEGATIVE_INFINITY };
  }
  try {
    // The file is append-only: at the size the caller read, it holds the lines it counted.
    if (known !== undefined && known.bytes > 0 && fstatSync(fd).size === known.bytes) {
      const tailStart = Math.max(0, known.bytes - STAMP_TAIL_BYTES);
      return { lines: known.lines, endsWithNewline: true, lastStampMs: lastTimestampMs(readRange(fd, tailStart, known.bytes - tailStart)) };
    }
    const chunk = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
    let newlines = 0;
    let size = 0;
    let lastByte = -1;
    for (;;) {
      const n = readSync(fd, chunk, 0, SCAN_CHUNK_BYTES, size);
      if (n === 0) break;
      const read = n === SCAN_CHUNK_BYTES ? chunk : chunk.subarray(0, n);
      for (let at = read.indexOf(0x0a); at >= 0; at = read.indexOf(0x0a, at + 1)) newlines++;
      lastByte = read[n - 1]!;
      size += n;
    }
    if (size === 0) return { lines: 0, endsWithNewline: true, lastStampMs: Number.NEGATIVE_INFINITY };
    const endsWithNewline = lastByte === 0x0a;
    const tailStart = Math.max(0, size - STAMP_TAIL_BYTES);
    const tail = readRange(fd, tailStart, size - tailStart);
    return { lines: newlines + (endsWithNewline ? 0 : 1), endsWithNewline, lastStampMs: lastTimestampMs(tail) };
  } finally {
    closeSync(fd);
  }
}

/** The timestamp of the last line that has one in `tail` (the file's last bytes). */
function lastTimestampMs(tail: Buffer): number {
  const lines = tail.toString("utf8").split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /"timestamp":"([^"]+)"/.exec(lines[i] ?? "");
    const ms = match === null ? Number.NaN : Date.parse(match[1] ?? "");
    if (!Number.isNaN(ms)) return ms;
  }
  return Number.NEGATIVE_INFINITY;
}
