/**
 * Stitching history and the live stream into one gap-free, duplicate-free sequence.
 *
 * The client rule (SPEC §9): subscribe to the stream first and buffer it; fetch the history;
 * apply the history, then seed the open fragments from `live.fragments`; then replay the
 * buffer, dropping every OmniMessage at or before the history's cursor (those are already in
 * the history or in the fragments); from then on apply events as they come.
 *
 * - When the history has no cursor the session was idle when it was read, so the trace holds
 *   every message published before that moment. If nothing but server events was buffered,
 *   nothing is missing. If OmniMessages were buffered, a task started around the read and we
 *   cannot place them: `seed` answers `retry`, keeps the buffer, and the caller resets its
 *   view and fetches the history again (now with a live cursor). After `maxRetries` the
 *   buffered messages are dropped (the trace is the truth; a reload shows them).
 * - Server events are never dropped (approvals and titles are not in the history). Buffered
 *   ones are marked `stale` unless their id is after the cursor: the per-subscriber snapshot
 *   (no id) and anything at or before the cursor are older than the history, so their
 *   `task_state` must not override the state the history reports.
 * - Live events are also de-duplicated by id (a replay overlapping what was applied is
 *   harmless).
 *
 * Ids are trace positions (the server's runtime/stream-ids.ts): `NNN:LLLLLL` is the trace
 * record at that file and line; `NNN:LLLLLL.<epoch>.<k>` is the k-th event that is not a record
 * (a partial, a server event) sent after it by the server process `epoch`. Order: by position;
 * at one position the record comes first, then its followers by k; a follower of another
 * epoch (the server restarted) counts as newer.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import type { ServerEvent, StreamEvent } from "../../api/stream-events";

export interface EventId {
  file: number;
  line: number;
  follower?: { epoch: string; k: number };
}

const EVENT_ID = /^(\d{3,}):(\d{6,})(?:\.([0-9a-z]+)\.(\d+))?$/;

export function parseEventId(id: string | undefined | null): EventId | undefined {
  if (id === undefined || id === null) return undefined;
  const m = EVENT_ID.exec(id);
  if (m === null) return undefined;
  const at = { file: Number(m[1]), line: Number(m[2]) };
  return m[3] === undefined ? at : { ...at, follower: { epoch: m[3], k: Number(m[4]) } };
}

/** True when `id` comes after `cursor` (unparseable ids count as after: nothing is dropped on a guess). */
export function isAfter(id: string | undefined, cursor: string | undefined): boolean {
  const a = parseEventId(id);
  const c = parseEventId(cursor);
  if (a === undefined || c === undefined) return true;
  if (a.file !== c.file) return a.file > c.file;
  if (a.line !== c.line) return a.line > c.line;
  if (a.follower === undefined) return false;
  if (c.follower === undefined) return true;
  if (a.follower.epoch !== c.follower.epoch) return true;
  return a.follower.k > c.follower.k;
}

export interface StitchSink {
  message(m: OmniMessage): void;
  server(e: ServerEvent, stale: boolean): void;
}

export interface HistorySeed {
  messages: readonly OmniMessage[];
  fragments: readonly OmniMessage[];
  cursor: string | undefined;
}

export class Stitcher {
  readonly #sink: StitchSink;
  #buffer: StreamEvent[] = [];
  #live = false;
  #lastApplied: string | undefined;

  constructor(sink: StitchSink) {
    this.#sink = sink;
  }

  get live(): boolean {
    return this.#live;
  }

  /** An event from the transport: buffered until `seed`, applied afterwards. */
  push(e: StreamEvent): void {
    if (!this.#live) {
      this.#buffer.push(e);
      return;
    }
    this.#deliver(e, undefined, false, false);
  }

  /**
   * Applies the history and drains the buffer; the stitcher is live afterwards. Answers
   * `retry` (having applied nothing) when the history cannot be placed against the buffer.
   */
  seed(history: HistorySeed, options: { lastAttempt?: boolean; atCursor?: () => void } = {}): "ok" | "retry" {
    if (history.cursor === undefined && options.lastAttempt !== true && this.#buffer.some((e) => e.kind === "message")) {
      return "retry";
    }
    for (const m of history.messages) this.#sink.message(m);
    for (const m of history.fragments) this.#sink.message(m);
    // What the history says of its own instant (the task state) goes in here: the buffer is later.
    options.atCursor?.();
    this.#lastApplied = history.cursor;
    const buffered = this.#buffer;
    this.#buffer = [];
    this.#live = true;
    for (const e of buffered) this.#deliver(e, history.cursor, history.cursor === undefined, true);
    return "ok";
  }

  /** Back to buffering (resync): the caller resets its view and seeds again. */
  reset(): void {
    this.#live = false;
    this.#buffer = [];
    this.#lastApplied = undefined;
  }

  #deliver(e: StreamEvent, cursor: string | undefined, idle: boolean, draining: boolean): void {
    if (e.kind === "server") {
      const stale = draining && !(cursor !== undefined && e.id !== undefined && isAfter(e.id, cursor));
      this.#sink.server(e.event, stale);
      return;
    }
    if (idle) return;
    if (e.id !== undefined && this.#lastApplied !== undefined && !isAfter(e.id, this.#lastApplied)) return;
    if (e.id !== undefined) this.#lastApplied = e.id;
    this.#sink.message(e.message);
  }
}
