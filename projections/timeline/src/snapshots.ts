/**
 * The timeline's snapshots of the time-travel fold (`evolve` plus inspect's facts, from
 * @penguin/trace), every SNAPSHOT_EVERY events of a session, for fast time travel: a question
 * about event N starts from the nearest snapshot at or before it and reads only the events
 * after it from the trace file, from the byte offset the snapshot keeps.
 *
 * Three tables:
 * - `timeline_snapshots`: per session and event count (a multiple of SNAPSHOT_EVERY), the
 *   position and end offset of the last event folded, what that event is, the snapshot
 *   format, and the fold's state (snapshot-codec.ts: small fields whole, lists by lineage);
 * - `timeline_state_chunks`: the lineages' items, each chunk what a list gained between two
 *   snapshots, so a long session stores its context once, not once per snapshot;
 * - `timeline_fold_heads`: per session, how many events were folded and the events after the
 *   last snapshot, so a process that did not fold the earlier batches (a CLI after the
 *   server, a restart) can go on: last snapshot + those events = the fold where it stopped.
 * Every row is a function of the events alone (snapshot points are event counts, lineage
 * names come from them, the head holds the events since the last one), so a rebuild writes
 * the same rows as a runner that saw the events in other batches.
 *
 * Folding across batches keeps each session's fold in memory (a small cache, checked against
 * the head row before it is used), so following a live session does not decode its state on
 * every batch.
 *
 * The chunks hold no copy of the session's messages: an item that is an envelope read from a
 * trace line (or its payload) is stored as a reference to that line (snapshot-codec.ts), which
 * this projection knows from the events it folds (`path`, `startByte`, `endByte`). So the
 * chunks are a few MB where copies were most of the database, and encoding a snapshot
 * stringifies no message. Loading a snapshot reads those lines back from the session's files;
 * a reference that no longer resolves (a file replaced or cut) makes the question fold from
 * the trace instead, and the projection's own fold start over from the session's files.
 */
import { dirname } from "node:path";
import type { Kysely } from "kysely";
import type { OmniMessage, ToolCallOutputPayload } from "@penguin/omnimessage";
import type { RowWriter, TraceEvent } from "@penguin/projections-runner";
import {
  decodeItems,
  decodeSnapshotWith,
  describeRecord,
  initialTimeTravelState,
  lineageItems,
  lineagesOf,
  SNAPSHOT_FORMAT,
  SnapshotEncoder,
  SnapshotLineMismatch,
  readTraceFile,
  stepTimeTravel,
  TraceLineResolver,
  traceFilesIn,
  type LineRefOf,
  type TraceLineRef,
  type SnapshotLookup,
  type SnapshotSource,
  type StateAtTarget,
  type TimeTravelState,
  type TraceFileRef,
} from "@penguin/trace";

/** Events between two snapshots: a question folds at most this many events from the file. */
export const SNAPSHOT_EVERY = 500;

export interface TimelineSnapshotRow {
  session_id: string;
  events: number;
  file_index: number;
  line: number;
  end_byte: number;
  record: string;
  format: number;
  state: string;
}

export interface TimelineStateChunkRow {
  session_id: string;
  lineage: string;
  start: number;
  items: string;
}

export interface TimelineFoldHeadRow {
  session_id: string;
  events: number;
  file_index: number;
  line: number;
  end_byte: number;
  /** JSON array of the envelopes folded since the last snapshot, each a reference to its trace line (snapshot-codec.ts `encodeItems`). */
  tail: string;
}

export interface SnapshotTables {
  timeline_snapshots: TimelineSnapshotRow;
  timeline_state_chunks: TimelineStateChunkRow;
  timeline_fold_heads: TimelineFoldHeadRow;
}

export async function migrateSnapshotTables(db: Kysely<SnapshotTables>): Promise<void> {
  await db.schema
    .createTable("timeline_snapshots")
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("events", "integer", (c) => c.notNull())
    .addColumn("file_index", "integer", (c) => c.notNull())
    .addColumn("line", "integer", (c) => c.notNull())
    .addColumn("end_byte", "integer", (c) => c.notNull())
    .addColumn("record", "text", (c) => c.notNull())
    .addColumn("format", "integer", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("timeline_snapshots_pk", ["session_id", "events"])
    .execute();
  await db.schema
    .createTable("timeline_state_chunks")
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("lineage", "text", (c) => c.notNull())
    .addColumn("start", "integer", (c) => c.notNull())
    .addColumn("items", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("timeline_state_chunks_pk", ["session_id", "lineage", "start"])
    .execute();
  await db.schema
    .createTable("timeline_fold_heads")
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("events", "integer", (c) => c.notNull())
    .addColumn("file_index", "integer", (c) => c.notNull())
    .addColumn("line", "integer", (c) => c.notNull())
    .addColumn("end_byte", "integer", (c) => c.notNull())
    .addColumn("tail", "text", (c) => c.notNull())
    .execute();
}

/** An event of the tail: as it came in a batch, or as read back from the head row (with its line, when it was a reference). */
type TailEvent = TraceEvent | { message: OmniMessage; line: TraceLineRef | undefined };

const lineOfTail = (t: TailEvent): TraceLineRef | undefined => ("sessionId" in t ? lineOf(t) : t.line);

/** One session's fold as far as it has gone. */
interface FoldHead {
  events: number;
  fileIndex: number;
  line: number;
  endByte: number;
  fold: TimeTravelState;
  encoder: SnapshotEncoder;
  /** Envelopes folded since the last snapshot, each with the line it was read from (when known). */
  tail: TailEvent[];
  /** `tail` as the head row holds it: a cached fold is used only for a row that says exactly this. */
  tailJson: string;
  /**
   * The tool outputs the fold may still copy into its history (those in its state, and those
   * folded since the last snapshot), by call id, with the line each was read from: a copy is
   * stored as a reference to that line. Cut back to the state's outputs at every snapshot, so
   * a fold restored from a snapshot knows exactly the same ones as a fold that never stopped.
   */
  outputs: Map<string, { payload: object; line: LineOrigin }>;
}

const CACHED_SESSIONS = 4;
/**
 * Messages the folds other than the latest one may hold (their histories and tails) before
 * the oldest is dropped. A fold holds every message of its session since the last compaction,
 * so four long sessions would pin most of their content: an offline rebuild, which reads the
 * sessions one after the other and never comes back to one, would carry three finished
 * sessions' messages through every GC for nothing. Small live sessions all stay cached.
 */
const CACHED_MESSAGES = 4_000;
/** Folds kept between batches, by session (least recently used first); a head row that says otherwise wins. */
const heads = new Map<string, FoldHead>();

const weightOf = (head: FoldHead): number => head.fold.session.history.size + head.tail.length;

function remember(sessionId: string, head: FoldHead): void {
  heads.delete(sessionId);
  heads.set(sessionId, head);
  let others = 0;
  for (const [id, h] of heads) if (id !== sessionId) others += weightOf(h);
  for (const [id, h] of heads) {
    if (heads.size <= CACHED_SESSIONS && others <= CACHED_MESSAGES) break;
    if (id === sessionId) continue;
    heads.delete(id);
    others -= weightOf(h);
  }
}

/**
 * The items of each lineage a source has read, by session and lineage, so a second question
 * does not parse the session's context again. A lineage only ever grows (chunks are appended
 * past its end), so a cached list is extended with the chunks after it. Bounded by items.
 */
class LineageCache {
  readonly #items = new Map<string, unknown[]>();
  #total = 0;
  constructor(readonly maxItems: number) {}

  async items(db: Kysely<SnapshotTables>, sessionId: string, lineage: string, size: number, lines: TraceLineResolver | undefined): Promise<unknown[]> {
    const key = `${sessionId}\u0000${lineage}`;
    let items = this.#items.get(key);
    if (items !== undefined) {
      this.#items.delete(key);
      this.#items.set(key, items);
    } else items = [];
    if (items.length < size) {
      const before = items.length;
      const rows = await db.selectFrom("timeline_state_chunks").select(["lineage", "start", "items"]).where("session_id", "=", sessionId).where("lineage", "=", lineage).where("start", ">=", before).orderBy("start").execute();
      lineageItems(lineage, rows.map((r) => ({ lineage: r.lineage, start: Number(r.start), items: r.items })), items, lines);
      this.#total += items.length - before;
      this.#items.set(key, items);
      for (const [k, v] of this.#items) {
        if (this.#total <= this.maxItems || k === key) break;
        this.#items.delete(k);
        this.#total -= v.length;
      }
    }
    return items;
  }
}

/** A snapshot's fold; throws when its chunks are missing or a reference does not resolve in `lines`. */
async function loadSnapshot(db: Kysely<SnapshotTables>, sessionId: string, row: Pick<TimelineSnapshotRow, "state">, lines: TraceLineResolver | undefined, cache = new LineageCache(Number.POSITIVE_INFINITY)): Promise<ReturnType<typeof decodeSnapshotWith>> {
  const items = new Map<string, unknown[]>();
  for (const { lineage, size } of lineagesOf(row.state)) items.set(lineage, await cache.items(db, sessionId, lineage, size, lines));
  return decodeSnapshotWith(row.state, (lineage) => items.get(lineage) ?? [], lines);
}

/** The sessions whose folds are cached, least recently used first (what the cache bound keeps, for its tests). */
export function cachedFoldSessions(): string[] {
  return [...heads.keys()];
}

/** Where an envelope or payload was read from: the event it came with, or the line a snapshot's reference resolved to. */
type LineOrigin = TraceEvent | TraceLineRef;

/**
 * The lines the model messages this process folded were read from, so that a fold's lists
 * store references to them. Weak: an envelope no fold holds any more goes with its entry.
 * (Payloads need no entry of their own: a window's payloads are its messages' payloads, which
 * the encoder pairs by index, and the state's tool outputs are in `FoldHead.outputs`.)
 */
const lineOfMessage = new WeakMap<object, MessageLine>();
/**
 * A message's line as `lineOfMessage` keeps it: `[file index, start byte, length]` for one
 * folded here (its timestamp is the message's own), so the entry that lives as long as the
 * message is three numbers, not the whole event; a resolved reference as it was read.
 */
type MessageLine = readonly [file: number, start: number, length: number] | TraceLineRef;

function lineOf(origin: LineOrigin): TraceLineRef | undefined {
  if (!("message" in origin)) return origin;
  return origin.startByte === undefined ? undefined : { file: origin.fileIndex, start: origin.startByte, length: origin.endByte - origin.startByte, timestamp: origin.message.timestamp };
}

/** The same own keys with the very same values (the copy `modelMessage` makes of a payload). */
function sameFields(a: object, b: object): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (x[k] !== y[k]) return false;
  return true;
}

/** Which items of a session's fold are lines of its trace (`LineRefOf` for the snapshot encoder). */
function lineRefsOf(outputs: FoldHead["outputs"]): LineRefOf {
  return (item) => {
    const known = lineOfMessage.get(item);
    if (known !== undefined) {
      const line = "file" in known ? known : { file: known[0], start: known[1], length: known[2], timestamp: (item as OmniMessage).timestamp };
      return { line, part: "envelope" };
    }
    const p = item as Partial<ToolCallOutputPayload>;
    if (p.type === "tool_call_output" && typeof p.tool_call_id === "string") {
      // A tool output the state holds: the payload of the output's line.
      const output = outputs.get(p.tool_call_id);
      const line = output?.payload === item ? lineOf(output.line) : undefined;
      return line === undefined ? undefined : { line, part: "payload" };
    }
    // The copy of a tool output that opens the next request: `{ timestamp, type, payload }` around the output's fields.
    const m = item as Partial<OmniMessage<"model_msg">>;
    if (m.type !== "model_msg" || m.payload?.type !== "tool_call_output" || typeof m.timestamp !== "string") return undefined;
    const keys = Object.keys(m);
    if (keys.length !== 3 || keys[0] !== "timestamp" || keys[1] !== "type" || keys[2] !== "payload") return undefined;
    const original = outputs.get(m.payload.tool_call_id);
    const line = original === undefined ? undefined : lineOf(original.line);
    if (original === undefined || line === undefined || !sameFields(m.payload, original.payload)) return undefined;
    return { line, part: "output", timestamp: m.timestamp };
  };
}

/** The tail as the head row stores it: each envelope a reference to its line where it has one. */
function tailJsonOf(tail: readonly TailEvent[]): string {
  const out = new Array<unknown>(tail.length);
  for (let i = 0; i < tail.length; i++) {
    const t = tail[i]!;
    const line = lineOfTail(t);
    out[i] = line === undefined ? t.message : [line.file, line.start, line.length, line.timestamp];
  }
  return JSON.stringify(out);
}

/** Keeps, of the outputs known, those the fold's state still holds (the ones it may copy later). */
function keepStateOutputs(outputs: FoldHead["outputs"], fold: TimeTravelState): void {
  for (const id of outputs.keys()) if (!fold.session.outputs.has(id)) outputs.delete(id);
}

/** Notes a folded tool output (with the line it came from) as one the fold may copy. */
function noteOutput(outputs: FoldHead["outputs"], m: OmniMessage, origin: LineOrigin | undefined): void {
  if (origin === undefined || m.type !== "model_msg" || m.payload.type !== "tool_call_output") return;
  outputs.set(m.payload.tool_call_id, { payload: m.payload, line: origin });
}

/** The session's trace files, found beside the file an event was read from (`<traces>/<date>/<sid>_NNN.jsonl`). */
function sessionFiles(sessionId: string, events: readonly TraceEvent[]): TraceFileRef[] {
  const path = events.find((e) => e.path !== undefined)?.path;
  return path === undefined ? [] : traceFilesIn(dirname(dirname(path)), sessionId);
}

/**
 * The fold where the previous batches left it: from the cache when the head row agrees, else
 * from the last snapshot and the head's tail (both read back from the trace lines they refer
 * to). When a reference no longer resolves (a trace file replaced or cut), the session is
 * folded again from its files instead.
 */
async function headOf(db: Kysely<SnapshotTables>, sessionId: string, batchEvents: readonly TraceEvent[]): Promise<FoldHead> {
  const row = await db.selectFrom("timeline_fold_heads").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
  if (row === undefined) return { events: 0, fileIndex: 0, line: 0, endByte: 0, fold: initialTimeTravelState, encoder: new SnapshotEncoder(), tail: [], tailJson: "[]", outputs: new Map() };
  const events = Number(row.events);
  const cached = heads.get(sessionId);
  // The same count, last position and recent events: the same fold (another database of the same traces included).
  if (cached !== undefined && cached.events === events && cached.fileIndex === Number(row.file_index) && cached.line === Number(row.line) && cached.tailJson === row.tail) return cached;
  const position = { events, fileIndex: Number(row.file_index), line: Number(row.line), endByte: Number(row.end_byte) };
  const files = sessionFiles(sessionId, batchEvents);
  // Every line read back is known again as a line: the messages in the fold's lists, the tail's envelopes, the state's outputs.
  const resolved = new Map<object, TraceLineRef>();
  const lines = new TraceLineResolver(files, (m, line) => {
    resolved.set(m, line);
    if (m.type === "model_msg") {
      lineOfMessage.set(m, line);
      resolved.set(m.payload, line);
    }
  });
  const outputs: FoldHead["outputs"] = new Map();
  try {
    const tail = (decodeItems(row.tail, lines) as OmniMessage[]).map((message) => ({ message, line: resolved.get(message) }));
    const snapshotAt = events - tail.length;
    const encoder = new SnapshotEncoder();
    let fold = initialTimeTravelState;
    if (snapshotAt > 0) {
      const snapshot = await db.selectFrom("timeline_snapshots").select("state").where("session_id", "=", sessionId).where("events", "=", snapshotAt).executeTakeFirstOrThrow();
      const restored = await loadSnapshot(db, sessionId, snapshot, lines);
      encoder.seed(restored);
      fold = restored.fold;
      for (const [id, p] of fold.session.outputs) {
        const origin = resolved.get(p);
        if (origin !== undefined) outputs.set(id, { payload: p, line: origin });
      }
    }
    for (const t of tail) {
      fold = stepTimeTravel(fold, t.message);
      noteOutput(outputs, t.message, lineOfTail(t));
    }
    return { ...position, fold, encoder, tail, tailJson: row.tail, outputs };
  } catch (error) {
    if (!(error instanceof SnapshotLineMismatch)) throw error;
  }
  // The files no longer hold the lines the stored fold refers to: fold them again from the start.
  const tailLength = (JSON.parse(row.tail) as unknown[]).length;
  const messages = files.flatMap((f) => readTraceFile(f.file).messages);
  if (messages.length < events) throw new Error(`the trace files of session ${sessionId} hold ${messages.length} events, fewer than the ${events} its timeline was built from: rebuild the projections (penguin projections rebuild)`);
  let fold = initialTimeTravelState;
  for (let i = 0; i < events; i++) fold = stepTimeTravel(fold, messages[i]!);
  const tail = messages.slice(events - tailLength, events).map((message) => ({ message, line: undefined }));
  return { ...position, fold, encoder: new SnapshotEncoder(), tail, tailJson: tailJsonOf(tail), outputs };
}

/** Folds a batch (already in trace order per session) and writes the snapshots it reaches and each session's head. */
export async function applySnapshots(batch: readonly TraceEvent[], db: Kysely<SnapshotTables>, rows: RowWriter): Promise<void> {
  const bySession = new Map<string, TraceEvent[]>();
  for (const e of batch) {
    const list = bySession.get(e.sessionId);
    if (list === undefined) bySession.set(e.sessionId, [e]);
    else list.push(e);
  }
  const headRows: TimelineFoldHeadRow[] = [];
  for (const [sessionId, events] of bySession) {
    const head = await headOf(db, sessionId, events);
    let { fold } = head;
    let tail = head.tail.slice();
    let count = head.events;
    const refOf = lineRefsOf(head.outputs);
    for (const e of events) {
      if (e.path !== undefined && e.startByte !== undefined && e.message.type === "model_msg") {
        lineOfMessage.set(e.message, [e.fileIndex, e.startByte, e.endByte - e.startByte]);
        noteOutput(head.outputs, e.message, e);
      }
      fold = stepTimeTravel(fold, e.message);
      count += 1;
      tail.push(e);
      if (count % SNAPSHOT_EVERY === 0) {
        const encoded = head.encoder.encode(fold, count, refOf);
        keepStateOutputs(head.outputs, fold);
        // Written at once: a snapshot's chunks hold what its lists gained (most of 500 events'
        // content), and keeping a batch's worth of them until the end of it would carry
        // hundreds of kilobytes of JSON per snapshot through every young-generation GC.
        await rows.insert("timeline_snapshots", [{ session_id: sessionId, events: count, file_index: e.fileIndex, line: e.line, end_byte: e.endByte, record: describeRecord(e.message), format: SNAPSHOT_FORMAT, state: encoded.state }]);
        await rows.insert("timeline_state_chunks", encoded.chunks.map((c) => ({ session_id: sessionId, lineage: c.lineage, start: c.start, items: c.items })));
        tail = [];
      }
    }
    const tailJson = tailJsonOf(tail);
    const last = events[events.length - 1]!;
    headRows.push({ session_id: sessionId, events: count, file_index: last.fileIndex, line: last.line, end_byte: last.endByte, tail: tailJson });
    remember(sessionId, { events: count, fileIndex: last.fileIndex, line: last.line, endByte: last.endByte, fold, encoder: head.encoder, tail, tailJson, outputs: head.outputs });
  }
  await rows.insert("timeline_fold_heads", headRows, { columns: ["session_id"], update: ["events", "file_index", "line", "end_byte", "tail"] });
}

/**
 * The snapshots as a `SnapshotSource` for `agent.sessionState` / `agent.inspectState`. It
 * answers only while the database holds the timeline at `version` (the projection's current
 * one): snapshots of another version or format are never used. `db` is read at each question
 * (pass a function to follow a database that is replaced, as the server's runner does).
 * A source keeps the lists it has read (LineageCache), so keep one per database and ask it
 * again: after the first question about a session, the next ones parse none of its context.
 */
export function timelineSnapshots(db: Kysely<any> | (() => Promise<Kysely<any>>), version: number, options: { cachedItems?: number } = {}): SnapshotSource {
  const current = typeof db === "function" ? db : async () => db;
  const cache = new LineageCache(options.cachedItems ?? 400_000);
  return {
    async nearest(sessionId: string, target: StateAtTarget | undefined, files?: readonly TraceFileRef[]): Promise<SnapshotLookup | undefined> {
      const conn = (await current()) as Kysely<SnapshotTables & { projection_meta: { name: string; version: number } }>;
      const meta = await conn.selectFrom("projection_meta").select("version").where("name", "=", "timeline").executeTakeFirst();
      if (meta === undefined || Number(meta.version) !== version) return undefined;
      const head = await conn.selectFrom("timeline_fold_heads").select("events").where("session_id", "=", sessionId).executeTakeFirst();
      if (head === undefined) return undefined;
      let q = conn.selectFrom("timeline_snapshots").selectAll().where("session_id", "=", sessionId).where("format", "=", SNAPSHOT_FORMAT);
      if (target?.kind === "count") q = q.where("events", "<=", target.count);
      else if (target?.kind === "position") {
        const { file, line } = target.position;
        q = q.where((eb) => eb.or([eb("file_index", "<", file), eb.and([eb("file_index", "=", file), eb("line", "<=", line)])]));
      }
      const row = await q.orderBy("events", "desc").limit(1).executeTakeFirst();
      const totalEvents = Number(head.events);
      if (row === undefined) return { totalEvents, snapshot: undefined };
      // Throws when a reference into the files does not resolve: the caller folds from the files.
      const restored = await loadSnapshot(conn, sessionId, row, files === undefined ? undefined : new TraceLineResolver(files), cache);
      return {
        totalEvents,
        snapshot: { events: Number(row.events), position: { file: Number(row.file_index), line: Number(row.line) }, endByte: Number(row.end_byte), record: row.record, fold: restored.fold },
      };
    },
  };
}
