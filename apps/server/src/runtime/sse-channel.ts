/**
 * SseChannel: one event stream (a session's, or a user's) with a replay ring, so a client
 * that reconnects with `Last-Event-ID` gets exactly the events it missed, once, in order.
 *
 * Ids are `<epoch>-<seq>`: the epoch names this server process, and `seq` comes from one
 * counter shared by every channel of the process, so an id is never reused, not even by a
 * channel re-created after its session was evicted. The ring keeps the newest events up to
 * `maxEvents` and `maxBytes` (10,000 / 8 MB for sessions, SPEC §9).
 *
 * Subscribing with a last id, synchronously and therefore atomically with respect to
 * `publish`:
 * - no id: live events only;
 * - an id of this epoch at or after the ring's floor (the newest event it dropped, or the
 *   counter value when the channel was created): every newer ring event, then live;
 * - anything else (another epoch, older than the floor, garbage, from the future): one
 *   `resync_required` server event, then live. The client then reloads history.
 *
 * A channel may be given a `catchUp` for ids it cannot replay from its ring: it answers the
 * frame to send instead of `resync_required` (the user feed sends the read models' current
 * rows when the id names a projection position they have reached), or undefined to resync.
 *
 * Events without an id (per-subscriber snapshots such as the current task state) are sent
 * by callers straight to the sink and never enter the ring.
 */
import { formatSse } from "../http/sse.js";
import type { SseSink } from "../http/sse.js";

/** The process-wide id source. */
export class EventIds {
  readonly epoch: string;
  #seq = 0;

  constructor(epoch: string) {
    if (epoch.includes("-")) throw new Error(`an event epoch must not contain "-" (got "${epoch}")`);
    this.epoch = epoch;
  }

  next(): number {
    this.#seq += 1;
    return this.#seq;
  }

  get current(): number {
    return this.#seq;
  }

  format(seq: number): string {
    return `${this.epoch}-${seq}`;
  }

  /** The seq of an id of this epoch, or undefined. */
  parse(id: string): number | undefined {
    const at = id.lastIndexOf("-");
    if (at <= 0 || id.slice(0, at) !== this.epoch) return undefined;
    const seq = Number(id.slice(at + 1));
    return Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
  }
}

interface RingEntry {
  seq: number;
  frame: string;
  bytes: number;
}

export interface ChannelLimits {
  maxEvents: number;
  maxBytes: number;
}

export const SESSION_RING: ChannelLimits = { maxEvents: 10_000, maxBytes: 8 * 1024 * 1024 };

export const RESYNC_EVENT = "server_event";

export class SseChannel {
  readonly #ids: EventIds;
  readonly #limits: ChannelLimits;
  readonly #ring: RingEntry[] = [];
  #head = 0;
  #bytes = 0;
  #floor: number;
  #lastSeq: number | undefined;
  readonly #subscribers = new Set<SseSink>();

  readonly #catchUp: ((lastEventId: string) => string | undefined) | undefined;

  constructor(ids: EventIds, limits: ChannelLimits, catchUp?: (lastEventId: string) => string | undefined) {
    this.#ids = ids;
    this.#limits = limits;
    this.#floor = ids.current;
    this.#catchUp = catchUp;
  }

  /** Frames, stores and fans out one event; returns its id. */
  publish(data: string, event?: string): string {
    const seq = this.#ids.next();
    const id = this.#ids.format(seq);
    const frame = formatSse(event === undefined ? { id, data } : { event, id, data });
    const entry = { seq, frame, bytes: Buffer.byteLength(frame) };
    this.#ring.push(entry);
    this.#bytes += entry.bytes;
    this.#lastSeq = seq;
    this.#trim();
    for (const sink of this.#subscribers) sink.send(frame);
    return id;
  }

  /** The id of the newest event, if any was published. */
  get lastId(): string | undefined {
    return this.#lastSeq === undefined ? undefined : this.#ids.format(this.#lastSeq);
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** Replays what `lastEventId` missed (or asks for a resync) and joins the live feed. */
  subscribe(sink: SseSink, lastEventId?: string): () => void {
    if (lastEventId !== undefined && lastEventId !== "") {
      const seq = this.#ids.parse(lastEventId);
      if (seq !== undefined && seq >= this.#floor && seq <= this.#ids.current) {
        for (let i = this.#head; i < this.#ring.length; i++) {
          const e = this.#ring[i];
          if (e !== undefined && e.seq > seq) sink.send(e.frame);
        }
      } else {
        const caughtUp = this.#catchUp?.(lastEventId);
        if (caughtUp !== undefined) {
          sink.send(caughtUp);
          this.#subscribers.add(sink);
          return () => void this.#subscribers.delete(sink);
        }
        const data = JSON.stringify({ type: "resync_required", lastEventId });
        const id = this.lastId;
        sink.send(formatSse(id === undefined ? { event: RESYNC_EVENT, data } : { event: RESYNC_EVENT, id, data }));
      }
    }
    this.#subscribers.add(sink);
    return () => void this.#subscribers.delete(sink);
  }

  /** Closes every subscriber (server shutdown, session deleted). */
  closeAll(): void {
    for (const sink of [...this.#subscribers]) sink.close();
    this.#subscribers.clear();
  }

  get size(): { events: number; bytes: number } {
    return { events: this.#ring.length - this.#head, bytes: this.#bytes };
  }

  #trim(): void {
    while (this.#ring.length - this.#head > this.#limits.maxEvents || (this.#bytes > this.#limits.maxBytes && this.#ring.length - this.#head > 1)) {
      const dropped = this.#ring[this.#head];
      if (dropped === undefined) break;
      this.#head += 1;
      this.#bytes -= dropped.bytes;
      this.#floor = dropped.seq;
    }
    // Compact the backing array now and then instead of shifting on every drop.
    if (this.#head > 1024 && this.#head * 2 > this.#ring.length) {
      this.#ring.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
