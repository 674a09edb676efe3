/**
 * Trace notices between the nodes of a cluster (several servers on one data root and one
 * PostgreSQL): a node that appends durable lines to a session's trace announces "session S
 * has lines up to position P" on one PostgreSQL channel (LISTEN/NOTIFY), and every other node
 * that serves a stream of S reads those lines from the trace files itself. A notice carries
 * positions only, never content: the files are the truth and a notice is a hint to look, so a
 * notice that never arrives costs latency, not events (the next notice, a reconnect of this
 * listener, or a client's own reconnect reads everything after the last line sent).
 *
 * Shape: one dedicated asynchronous `pg` connection per node (the facts stores' connection is
 * synchronous, in a worker thread, and cannot wait for notifications). It LISTENs and also
 * sends this node's notices (`pg_notify`), so a node ignores the notices its own connection
 * sent. Announcements made in one turn of the event loop go out together, newest position per
 * session, several per payload (PostgreSQL's limit is 8000 bytes). When the connection drops,
 * it is reconnected (with a growing pause, up to RECONNECT_MAX_MS) and `listening` is called
 * again: the receiver then catches up from the files, since notices sent meanwhile are lost.
 * Notices this node could not send wait and go out once connected again.
 *
 * Payload: lines `<session id> <NNN:LLLLLL>`, or `<session id>` alone ("read to the end").
 */
import { formatPosition, parsePosition, type TracePosition } from "@penguin/core";
import { comparePositions } from "./stream-ids.js";

export const TRACE_NOTICE_CHANNEL = "penguin_trace_lines";
/** The listening connection's application_name (pg_stat_activity shows which connection it is). */
export const TRACE_NOTICE_APPLICATION = "penguin-trace-notices";

/** Under PostgreSQL's 8000-byte payload limit. */
const PAYLOAD_LIMIT = 7900;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

export interface TraceNotice {
  sessionId: string;
  /** The newest durable line announced; undefined: read to the trace's end. */
  position: TracePosition | undefined;
}

/** What a node does with its peers' notices. */
export interface TraceNoticeReceiver {
  /** Other nodes appended durable lines to these sessions' traces. */
  notices(batch: readonly TraceNotice[]): void;
  /** Listening (re)started: notices may have been missed before it; catch up from the files. */
  listening(): void;
}

/** Where a node announces the durable lines it appended. */
export interface TraceAnnouncer {
  announce(sessionId: string, position?: TracePosition): void;
}

/** Encodes notices into payloads of at most PAYLOAD_LIMIT bytes each. */
export function encodeNotices(notices: readonly TraceNotice[]): string[] {
  const payloads: string[] = [];
  let current = "";
  for (const n of notices) {
    const line = n.position === undefined ? n.sessionId : `${n.sessionId} ${formatPosition(n.position)}`;
    if (current !== "" && Buffer.byteLength(current) + 1 + Buffer.byteLength(line) > PAYLOAD_LIMIT) {
      payloads.push(current);
      current = "";
    }
    current = current === "" ? line : `${current}\n${line}`;
  }
  if (current !== "") payloads.push(current);
  return payloads;
}

/** Decodes a payload; lines that are not notices (another writer on the channel) are skipped. */
export function decodeNotices(payload: string): TraceNotice[] {
  const out: TraceNotice[] = [];
  for (const line of payload.split("\n")) {
    const [sessionId, at, extra] = line.split(" ");
    if (sessionId === undefined || sessionId === "" || extra !== undefined) continue;
    if (at === undefined) {
      out.push({ sessionId, position: undefined });
      continue;
    }
    const position = parsePosition(at);
    if (position !== undefined) out.push({ sessionId, position });
  }
  return out;
}

type PgClient = import("pg").Client;

export class PostgresTraceNotices implements TraceAnnouncer {
  readonly #url: string;
  readonly #report: (error: unknown) => void;
  #receiver: TraceNoticeReceiver | undefined;
  #client: PgClient | undefined;
  /** Announcements not sent yet: the newest position per session (undefined: to the end). */
  #pending = new Map<string, TracePosition | undefined>();
  #flushQueued = false;
  #closed = false;
  #retryMs = RECONNECT_FIRST_MS;
  #retryTimer: NodeJS.Timeout | undefined;
  #reportedOutage = false;

  private constructor(url: string, report: (error: unknown) => void) {
    this.#url = url;
    this.#report = report;
  }

  /** Connects and LISTENs (failing when PostgreSQL cannot be reached now). */
  static async start(url: string, report: (error: unknown) => void): Promise<PostgresTraceNotices> {
    const notices = new PostgresTraceNotices(url, report);
    await notices.#connect();
    return notices;
  }

  /** Where the notices of other nodes go from now on (the node's streams; set once they exist). */
  deliverTo(receiver: TraceNoticeReceiver): void {
    this.#receiver = receiver;
    if (this.#client !== undefined) receiver.listening();
  }

  /** True while the LISTEN connection is up. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** The PostgreSQL backend of the connection (pg_stat_activity's pid), while connected. */
  get backendPid(): number | undefined {
    return (this.#client as unknown as { processID?: number } | undefined)?.processID;
  }

  announce(sessionId: string, position?: TracePosition): void {
    if (this.#closed) return;
    const before = this.#pending.get(sessionId);
    if (this.#pending.has(sessionId) && before === undefined) return;
    if (position === undefined || before === undefined || comparePositions(position, before) > 0) this.#pending.set(sessionId, position);
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushQueued = false;
      this.#flush();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    // What was announced in this last turn still goes out before the connection ends.
    this.#flush(client);
    await client.end().catch(() => undefined);
  }

  #flush(client = this.#client): void {
    if (client === undefined || this.#pending.size === 0) return;
    const batch = [...this.#pending].map(([sessionId, position]) => ({ sessionId, position }));
    this.#pending.clear();
    for (const payload of encodeNotices(batch)) {
      client.query("select pg_notify($1, $2)", [TRACE_NOTICE_CHANNEL, payload]).catch(() => {
        // The connection failed under it: these go out again once reconnected (a newer one wins).
        for (const n of decodeNotices(payload)) if (!this.#pending.has(n.sessionId)) this.#pending.set(n.sessionId, n.position);
      });
    }
  }

  async #connect(): Promise<void> {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: this.#url, application_name: TRACE_NOTICE_APPLICATION });
    client.on("notification", (message) => {
      // Our own notices come back to us too: this node has those lines already.
      if (message.channel !== TRACE_NOTICE_CHANNEL || message.processId === (client as unknown as { processID?: number }).processID || message.payload === undefined) return;
      const batch = decodeNotices(message.payload);
      if (batch.length === 0 || this.#receiver === undefined) return;
      try {
        this.#receiver.notices(batch);
      } catch (error) {
        this.#report(error);
      }
    });
    client.on("error", () => this.#lost(client));
    client.on("end", () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`listen ${TRACE_NOTICE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#retryMs = RECONNECT_FIRST_MS;
    this.#reportedOutage = false;
    this.#receiver?.listening();
    this.#flush();
  }

  #lost(client: PgClient): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.end().catch(() => undefined);
    this.#reconnectSoon();
  }

  #reconnectSoon(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#connect().catch((error: unknown) => {
        if (!this.#reportedOutage) this.#report(new Error(`trace notices: cannot reconnect to PostgreSQL (${(error as Error)?.message ?? String(error)}); streams of sessions run by other nodes wait until it answers`));
        this.#reportedOutage = true;
        this.#retryMs = Math.min(this.#retryMs * 2, RECONNECT_MAX_MS);
        this.#reconnectSoon();
      });
    }, this.#retryMs);
    this.#retryTimer.unref();
  }
}
