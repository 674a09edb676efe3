/**
 * The timeline's list of events (position, time, kind of every event of a session), stored in
 * blocks of BLOCK_LINES trace lines instead of one row per event.
 *
 * A rebuild of a large data root writes a million events: as rows, each one a b-tree entry
 * with its session id repeated, the insert was the largest single cost of the rebuild and the
 * table a good part of the file. A block row holds the events of lines
 * `block * BLOCK_LINES + 1 … (block + 1) * BLOCK_LINES` of one trace file, as the JSON text
 * of `[line, ts, kind]` triples in line order. Which block a line belongs to depends on the
 * line only, and a batch that continues a block appends to its text (the same characters a
 * single write of the whole block gives), so a rebuild and a runner that saw the events in
 * other batches hold the same rows. Readers unpack the blocks (`sessionEvents`).
 */
import type { Kysely } from "kysely";
import type { RowWriter, TraceEvent } from "@penguin/projections-runner";

/** Trace lines per block. */
export const BLOCK_LINES = 512;

export interface TimelineEventBlockRow {
  session_id: string;
  file_index: number;
  block: number;
  /** JSON array of `[line, ts, kind]`, in line order. */
  events: string;
}

/** One event of the list, as readers see it. */
export interface TimelineEventRow {
  session_id: string;
  file_index: number;
  line: number;
  ts: number;
  kind: string;
}

export interface EventBlockTables {
  timeline_event_blocks: TimelineEventBlockRow;
}

export async function migrateEventBlocks(db: Kysely<EventBlockTables>): Promise<void> {
  await db.schema
    .createTable("timeline_event_blocks")
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("file_index", "integer", (c) => c.notNull())
    .addColumn("block", "integer", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("timeline_event_blocks_pk", ["session_id", "file_index", "block"])
    .execute();
}

const blockOf = (line: number): number => Math.floor((line - 1) / BLOCK_LINES);

/**
 * Adds a batch's events to their blocks: a block already stored (from an earlier batch) is
 * read once and extended, one this batch started is extended in memory; each is written once.
 * A file's events come in line order, so of the blocks a batch touches in a file only the
 * first can be stored already: only that one is looked up.
 */
export async function applyEventBlocks(batch: readonly TraceEvent[], db: Kysely<EventBlockTables>, rows: RowWriter): Promise<void> {
  const blocks = new Map<string, TimelineEventBlockRow>();
  const filesSeen = new Set<string>();
  let i = 0;
  while (i < batch.length) {
    const first = batch[i]!;
    const block = blockOf(first.line);
    let json = "";
    let j = i;
    for (; j < batch.length; j++) {
      const e = batch[j]!;
      if (e.sessionId !== first.sessionId || e.fileIndex !== first.fileIndex || blockOf(e.line) !== block) break;
      json += `${json.length === 0 ? "" : ","}[${e.line},${e.ts},${JSON.stringify(e.kind)}]`;
    }
    i = j;
    const key = `${first.sessionId}\u0000${first.fileIndex}\u0000${block}`;
    let row = blocks.get(key);
    if (row === undefined) {
      const fileKey = `${first.sessionId}\u0000${first.fileIndex}`;
      const firstInFile = !filesSeen.has(fileKey);
      filesSeen.add(fileKey);
      const stored = firstInFile ? await db.selectFrom("timeline_event_blocks").select("events").where("session_id", "=", first.sessionId).where("file_index", "=", first.fileIndex).where("block", "=", block).executeTakeFirst() : undefined;
      row = { session_id: first.sessionId, file_index: first.fileIndex, block, events: stored?.events ?? "[]" };
      blocks.set(key, row);
    }
    // `[a]` extended by `b` is `[a,b]`: the text one write of the whole block gives.
    row.events = row.events === "[]" ? `[${json}]` : `${row.events.slice(0, -1)},${json}]`;
  }
  await rows.insert("timeline_event_blocks", [...blocks.values()], { columns: ["session_id", "file_index", "block"], update: ["events"] });
}

/** A session's events in trace order, unpacked from their blocks. */
export async function sessionEvents(db: Kysely<EventBlockTables>, sessionId: string): Promise<TimelineEventRow[]> {
  const blocks = await db.selectFrom("timeline_event_blocks").select(["file_index", "events"]).where("session_id", "=", sessionId).orderBy("file_index").orderBy("block").execute();
  const out: TimelineEventRow[] = [];
  for (const b of blocks) {
    const fileIndex = Number(b.file_index);
    for (const [line, ts, kind] of JSON.parse(b.events) as [number, number, string][]) out.push({ session_id: sessionId, file_index: fileIndex, line, ts, kind });
  }
  return out;
}

/** How many events of a session the list holds (what a follower waits on). */
export async function sessionEventCount(db: Kysely<EventBlockTables>, sessionId: string): Promise<number> {
  const blocks = await db.selectFrom("timeline_event_blocks").select("events").where("session_id", "=", sessionId).execute();
  let n = 0;
  for (const b of blocks) n += (JSON.parse(b.events) as unknown[]).length;
  return n;
}
