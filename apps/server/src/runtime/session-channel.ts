/**
 * SessionChannel: a session's event stream, resumable from its trace.
 *
 * Durable events are trace records, sent with their position as id (stream-ids.ts) once
 * they are on disk. The trace itself is the replay buffer for them: a client that reconnects
 * with `Last-Event-ID` (from this process or from one before a restart) gets every record
 * after that position read back from the files, then the live feed, so it misses no record
 * and sees none twice. What cannot be in the trace (partials, mirrored subagent messages,
 * server events) is kept in a ring of this process (the newest 10,000 events / 8 MB), and a
 * replay interleaves the ring's events after the client's id with the records at their
 * places, so a client of the same process gets exactly every event it missed, as before ids
 * were positions; after a restart the ring is empty and the records alone are replayed.
 *
 * The partials of a run (`volatile(…, { streaming: true })`) are most of the ring (a 200-delta
 * answer is ~55 KB of frames) and worth nothing once the run has ended: every one of them is
 * folded into a record of the trace by then. `runEnded()` drops them unless a client may still
 * come back for them: one that left (its stream closed) since the last drop, less than
 * `PARTIALS_KEPT_FOR_LEAVERS_MS` ago, may reconnect with an id inside the run and gets exactly
 * what it missed, partials included. When every client that saw the run is still connected
 * (each has been sent every event), nobody can ask for them, and the ring keeps only the
 * server events and the mirrored subagent messages. A client that comes back later than that
 * (or holds an id of the previous process) gets the run's records, which carry the same text.
 *
 * Subscribing with a last id (synchronous, so no event can be sent between the replay and
 * joining the live feed):
 * - no id: live events only;
 * - a position that exists (at or before the last durable line sent, the line within its
 *   file): the records after it (up to the last one sent; later lines are on their way live)
 *   with the ring's events after the id among them;
 * - anything else (a position past the end, an old `<epoch>-<seq>` id, garbage): one
 *   `resync_required` server event, then live. The client then reloads history.
 *
 * Where the stream stands is fixed when the channel is made (the trace's end then: a hub is
 * made before this process loads the session, so no writer of ours has lines waiting for their
 * sync), then moved by each record sent. It is never read again from the files: a writer
 * writes a record before it publishes it (after the sync of a commit point), and a read of
 * the file's end in between would count records nobody was sent.
 *
 * Each subscriber keeps the position it has (`SubscriberCursor`): its `Last-Event-ID`, then
 * each record it is sent. A record goes to every subscriber that does not have it, so the
 * boundary between a client's replay and its live feed is the client's own position, not the
 * channel's: a record published late (after a catch-up read past it, or a read of the end)
 * still reaches whoever lacks it, and none gets it twice. The host calls `durable` for each
 * record in trace order (from the writer's listener) or `catchUp` to read records written by
 * someone else (a subagent's own writer, a fact recorded while the session was not loaded).
 *
 * In a cluster (runtime/trace-notices.ts), `onAdvance` hears each record this node sends as
 * its own (written here: by this node's writer, or by `catchUp` after a write of this node),
 * so the node can announce it to the others; `follow` reads the records another node wrote
 * (up to the position it announced, or to the end) and sends them without announcing them again.
 */
import { lastRecordLine, readTraceFileLines, type TracePosition } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { formatSse, type SseSink } from "../http/sse.js";
import { BEFORE_START, comparePositions, formatStreamId, parseStreamId } from "./stream-ids.js";
import { fileFollowReader, TraceFollower, type FollowReader } from "./trace-follower.js";

export interface TraceFileRef {
  file: string;
  index: number;
}

export interface VolatileLimits {
  maxEvents: number;
  maxBytes: number;
}

export const VOLATILE_TAIL: VolatileLimits = { maxEvents: 10_000, maxBytes: 8 * 1024 * 1024 };

export const RESYNC_EVENT = "server_event";

/** How long after a client left a finished run's partials stay for it (browsers reconnect after RETRY_MS, 2 s). */
export const PARTIALS_KEPT_FOR_LEAVERS_MS = 60_000;

/** What one subscriber has: the last record it was sent (undefined: it came without an id and has none yet). */
interface SubscriberCursor {
  has: TracePosition | undefined;
}

interface VolatileEntry {
  position: TracePosition;
  k: number;
  frame: string;
  bytes: number;
  /** A run's partial: dropped by `runEnded()` when no client can ask for it any more. */
  streaming: boolean;
}

export class SessionChannel {
  readonly #traceFiles: () => TraceFileRef[];
  readonly #epoch: string;
  readonly #limits: VolatileLimits;
  #last: TracePosition;
  #volatile: VolatileEntry[] = [];
  #volatileBytes = 0;
  #k = 0;
  readonly #subscribers = new Map<SseSink, SubscriberCursor>();
  readonly #now: () => number;
  /** When the last client left since partials were last dropped (undefined: none left). */
  #leftAt: number | undefined;
  /** Hears each record this node sends as its own (see the module comment); set by the host. */
  onAdvance: ((position: TracePosition) => void) | undefined;
  /** True while `follow` sends records another node wrote. */
  #following = false;
  /** Where `follow` stopped in the files (made at the first follow): each byte is read once. */
  #follower: TraceFollower | undefined;
  readonly #followReader: FollowReader;

  constructor(traceFiles: () => TraceFileRef[], epoch: string, limits: VolatileLimits = VOLATILE_TAIL, now: () => number = Date.now, followReader: FollowReader = fileFollowReader) {
    if (!/^[0-9a-z]+$/.test(epoch)) throw new Error(`a stream epoch must be lowercase letters and digits (got "${epoch}")`);
    this.#traceFiles = traceFiles;
    this.#epoch = epoch;
    this.#limits = limits;
    this.#now = now;
    this.#followReader = followReader;
    this.#last = traceEnd(traceFiles());
  }

  /** The position of the last trace record sent (or, before any, the trace's end when the channel was made). */
  lastDurable(): TracePosition {
    return this.#last;
  }

  /** The id of the newest event sent (a history answer reflecting the stream up to here). */
  get lastId(): string {
    const position = this.lastDurable();
    return formatStreamId(this.#k === 0 ? { position } : { position, volatile: { epoch: this.#epoch, k: this.#k } });
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /**
   * Sends one trace record with its position; a position at or before the last one sent is
   * ignored (already sent). `announce` false: the writer announces it itself, once it is synced.
   */
  durable(message: OmniMessage, position: TracePosition, announce = true): void {
    if (comparePositions(position, this.#last) > 0) {
      this.#last = position;
      this.#k = 0;
      if (!this.#following && announce) this.onAdvance?.(position);
    }
    let frame: string | undefined;
    for (const [sink, cursor] of this.#subscribers) {
      if (cursor.has !== undefined && comparePositions(position, cursor.has) <= 0) continue;
      frame ??= formatSse({ id: formatStreamId({ position }), data: JSON.stringify(message) });
      cursor.has = position;
      sink.send(frame);
    }
  }

  /** Sends an event that is not in the trace; returns its id. `streaming`: a run's partial (see `runEnded`). */
  volatile(data: string, event?: string, options: { streaming?: boolean } = {}): string {
    const position = this.lastDurable();
    this.#k += 1;
    const id = formatStreamId({ position, volatile: { epoch: this.#epoch, k: this.#k } });
    const frame = formatSse(event === undefined ? { id, data } : { event, id, data });
    const bytes = Buffer.byteLength(frame);
    this.#volatile.push({ position, k: this.#k, frame, bytes, streaming: options.streaming === true });
    this.#volatileBytes += bytes;
    while (this.#volatile.length > 1 && (this.#volatile.length > this.#limits.maxEvents || this.#volatileBytes > this.#limits.maxBytes)) {
      this.#volatileBytes -= this.#volatile.shift()?.bytes ?? 0;
    }
    for (const sink of this.#subscribers.keys()) sink.send(frame);
    return id;
  }

  /** Reads the records appended to the trace after the last one sent, and sends them. */
  catchUp(): void {
    const after = this.lastDurable();
    for (const e of readRecords(this.#traceFiles(), after, undefined)) this.durable(e.message, e.position);
  }

  /**
   * Reads the records another node appended after the last one sent, through `upTo` (the
   * position it announced) or to the end, and sends them; `onAdvance` does not hear them.
   * Only the bytes appended since the last follow are read (trace-follower.ts).
   */
  follow(upTo?: TracePosition): void {
    const after = this.lastDurable();
    if (upTo !== undefined && comparePositions(upTo, after) <= 0) return;
    this.#follower ??= new TraceFollower(this.#traceFiles, this.#followReader);
    this.#following = true;
    try {
      for (const e of this.#follower.read(after, upTo)) this.durable(e.message, e.position);
    } finally {
      this.#following = false;
    }
  }

  /** Replays what `lastEventId` missed (or asks for a resync) and joins the live feed. */
  subscribe(sink: SseSink, lastEventId?: string): () => void {
    const has = lastEventId !== undefined && lastEventId !== "" ? this.#replay(sink, lastEventId) : undefined;
    this.#subscribers.set(sink, { has });
    return () => {
      // A client that leaves may come back with Last-Event-ID for the partials it missed.
      if (this.#subscribers.delete(sink)) this.#leftAt = this.#now();
    };
  }

  /**
   * The session's run has ended: every partial in the ring is folded into a trace record by
   * now. Drops them, unless a client left less than PARTIALS_KEPT_FOR_LEAVERS_MS ago and may
   * come back for them (then the next run's end looks again). Returns how many were dropped.
   */
  runEnded(): number {
    if (this.#leftAt !== undefined && this.#now() - this.#leftAt < PARTIALS_KEPT_FOR_LEAVERS_MS) return 0;
    this.#leftAt = undefined;
    const before = this.#volatile.length;
    this.#volatile = this.#volatile.filter((e) => !e.streaming);
    this.#volatileBytes = this.#volatile.reduce((n, e) => n + e.bytes, 0);
    return before - this.#volatile.length;
  }

  /** What the ring holds: events and bytes of frames. */
  get volatileSize(): { events: number; bytes: number } {
    return { events: this.#volatile.length, bytes: this.#volatileBytes };
  }

  /** Closes every subscriber (server shutdown, session deleted). */
  closeAll(): void {
    for (const sink of [...this.#subscribers.keys()]) sink.close();
    this.#subscribers.clear();
  }

  /** Sends what the client with `lastEventId` missed; answers the position it has then (undefined after a resync). */
  #replay(sink: SseSink, lastEventId: string): TracePosition | undefined {
    const id = parseStreamId(lastEventId);
    const last = this.#last;
    const files = this.#traceFiles();
    if (id === undefined || !positionExists(files, id.position, last)) {
      const data = JSON.stringify({ type: "resync_required", lastEventId });
      sink.send(formatSse({ event: RESYNC_EVENT, id: this.lastId, data }));
      return undefined;
    }
    // Ring events after the client's id: at a later position, or at its position past its k
    // (all of them when its suffix is another process's, or when it has none).
    const k0 = id.volatile?.epoch === this.#epoch ? id.volatile.k : 0;
    const pending = this.#volatile.filter((e) => {
      const c = comparePositions(e.position, id.position);
      return c > 0 || (c === 0 && e.k > k0);
    });
    let next = 0;
    for (const r of readRecords(files, id.position, last)) {
      while (next < pending.length && comparePositions(pending[next]!.position, r.position) < 0) sink.send(pending[next++]!.frame);
      sink.send(formatSse({ id: formatStreamId({ position: r.position }), data: JSON.stringify(r.message) }));
    }
    while (next < pending.length) sink.send(pending[next++]!.frame);
    return comparePositions(id.position, last) > 0 ? id.position : last;
  }
}

/** The position of a trace's last record, or BEFORE_START when it has none. */
export function traceEnd(files: readonly TraceFileRef[]): TracePosition {
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i]!;
    const line = safely(() => lastRecordLine(f.file));
    if (line !== undefined) return { file: f.index, line };
  }
  return BEFORE_START;
}

/**
 * The records after `after` (exclusive) up to `upTo` (inclusive; the end when undefined), in
 * order. Only those lines of the files are decoded: a client that missed a few records of a
 * long trace, or a stream catching up with a subagent's writer after each of its records,
 * costs a scan of the bytes, not a parse of the whole file each time.
 */
export function readRecords(files: readonly TraceFileRef[], after: TracePosition, upTo: TracePosition | undefined): { position: TracePosition; message: OmniMessage }[] {
  const out: { position: TracePosition; message: OmniMessage }[] = [];
  for (const f of files) {
    if (f.index < after.file || (upTo !== undefined && f.index > upTo.file)) continue;
    const range = { after: f.index === after.file ? after.line : 0, ...(upTo !== undefined && f.index === upTo.file ? { through: upTo.line } : {}) };
    const content = safely(() => readTraceFileLines(f.file, range));
    if (content === undefined) continue;
    content.messages.forEach((message, i) => out.push({ position: { file: f.index, line: content.lines[i]! }, message }));
  }
  return out;
}

/** A client can only hold the position of a record that exists: BEFORE_START, or a record line at or before `last`. */
function positionExists(files: readonly TraceFileRef[], p: TracePosition, last: TracePosition): boolean {
  if (p.file === 0) return true;
  if (comparePositions(p, last) > 0) return false;
  const file = files.find((f) => f.index === p.file);
  return file !== undefined && (safely(() => readTraceFileLines(file.file, { after: p.line - 1, through: p.line }))?.lines.includes(p.line) ?? false);
}

/** A read of a trace file that may be gone (a session deleted meanwhile): undefined then. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
