/**
 * ProjectionStore: a projections database kept in step with a data root's traces.
 *
 * Opening it brings every projection to its declared version: one seen for the first time is
 * migrated; one whose `version` changed has its tables and checkpoints dropped and is built
 * again from the first line (the next catch-up replays every trace for it alone, while the
 * others carry on from their checkpoints).
 *
 * `catchUp()` reads each trace file from the checkpoint on, in order (project, agent, session,
 * file index), and commits what it read in batches of many files, one transaction each: the
 * rows every projection writes, and its checkpoint for each file (bytes and lines consumed,
 * events read, lines skipped, whether a torn tail is pending, how many bytes were looked at).
 * The checkpoint write is a compare-and-set on the values read before the batch: when another process (the CLI beside a running server) moved one
 * first, the batch is dropped and reading starts over from the checkpoints as they are, so no
 * event is ever applied twice.
 *
 * The database is a SQLite file or, for a `postgres://` target, a PostgreSQL schema
 * (`ProjectionDatabase`, database.ts and postgres-database.ts): the store does not otherwise
 * know which; the transaction, the catalogue and the row writer come from the database.
 */
import { statSync } from "node:fs";
import type { Kysely } from "kysely";
import { checkProjections, eventKind, type Projection, type TraceEvent } from "./contract.js";
import { openProjectionDatabase, sqliteProjections, type JournalMode, type ProjectionDatabase } from "./database.js";
import { isPostgresTarget } from "./dialect.js";
import { LIVE_SCHEMA, openPostgresProjections } from "./postgres-database.js";
import { listTraceFiles, type TraceFile } from "./trace-folders.js";
import { readTraceChunk, type TraceChunk } from "./trace-lines.js";
import { parseEventTime } from "./event-time.js";

export interface Checkpoint {
  /** Offset after the last complete line applied. */
  bytes: number;
  /** Bytes of the file looked at so far (past `bytes` only when a tail had no newline yet). */
  seen: number;
  lines: number;
  events: number;
  skipped: number;
  tornTail: boolean;
}

const START: Checkpoint = { bytes: 0, seen: 0, lines: 0, events: 0, skipped: 0, tornTail: false };

export interface CatchUpProgress {
  filesDone: number;
  filesTotal: number;
  events: number;
}

export interface CatchUpResult {
  /** Trace files looked at. */
  files: number;
  /** Envelopes read past the checkpoints. */
  events: number;
  /** Complete lines that held no envelope, newly counted. */
  skipped: number;
  /** Files that became shorter than their checkpoint (not append-only any more): left as they were. */
  shrunk: string[];
}

export interface ProjectionStatus {
  name: string;
  version: number;
  files: number;
  events: number;
  /** Skipped lines, plus one per file whose tail is torn right now. */
  skipped: number;
  /** Bytes on disk past the checkpoints (files not seen yet included). */
  lagBytes: number;
  /** Files with bytes past their checkpoint, or not seen yet. */
  lagFiles: number;
}

export interface OpenStoreOptions {
  /** The SQLite file, or a postgres:// URL (then the tables live in `schema`). */
  file: string;
  /** On PostgreSQL, the schema holding the tables (default `penguin_projections`). */
  schema?: string | undefined;
  root: string;
  projections: readonly Projection[];
  journal?: JournalMode;
}

type CommitResult = { readonly _tag: "Committed" } | { readonly _tag: "CheckpointMoved" };

/** Bounds of one batch: enough to amortize a transaction, small enough to hold in memory. */
const BATCH_BYTES = 4 << 20;
const BATCH_EVENTS = 10_000;
const KEY_CHUNK = 200;

/**
 * Chunks read but not committed yet: per projection, its events in read order (a session's
 * files in index order), and per (projection, file) the checkpoint expected in the database
 * and the one to write.
 */
class PendingBatch {
  readonly events_ = new Map<string, TraceEvent[]>();
  readonly checkpoints = new Map<string, { projection: string; file: string; expected: Checkpoint; next: Checkpoint }>();
  events = 0;
  skipped = 0;
  #bytes = 0;
  #read = 0;

  add(p: Projection, file: string, before: Checkpoint, after: Checkpoint, events: readonly TraceEvent[]): void {
    const key = `${p.name}\u0000${file}`;
    const known = this.checkpoints.get(key);
    this.checkpoints.set(key, { projection: p.name, file, expected: known?.expected ?? before, next: after });
    const list = this.events_.get(p.name) ?? [];
    for (const e of events) list.push(e);
    this.events_.set(p.name, list);
  }

  /** Counts a chunk once (several projections may share it). */
  read(events: number, skipped: number, bytes: number): void {
    this.events += events;
    this.skipped += skipped;
    this.#bytes += bytes;
    this.#read += events;
  }

  full(): boolean {
    return this.#bytes >= BATCH_BYTES || this.#read >= BATCH_EVENTS;
  }

  empty(): boolean {
    return this.checkpoints.size === 0;
  }
}

export class ProjectionStore {
  readonly file: string;
  readonly root: string;
  readonly projections: readonly Projection[];
  readonly #opened: ProjectionDatabase;
  /** Per projection, the kinds it handles (absent: every kind), looked up for every event. */
  readonly #handled = new Map<string, ReadonlySet<string>>();
  #closed = false;

  private constructor(opened: ProjectionDatabase, root: string, projections: readonly Projection[]) {
    this.#opened = opened;
    this.file = opened.file;
    this.root = root;
    this.projections = projections;
    for (const p of projections) if (p.handles.length > 0) this.#handled.set(p.name, new Set(p.handles));
  }

  static async open(options: OpenStoreOptions): Promise<ProjectionStore> {
    checkProjections(options.projections);
    const opened = isPostgresTarget(options.file)
      ? await openPostgresProjections(options.file, options.schema ?? LIVE_SCHEMA)
      : sqliteProjections(await openProjectionDatabase(options.file, options.journal ?? "wal"));
    const store = new ProjectionStore(opened, options.root, options.projections);
    try {
      for (const p of options.projections) await store.#bringToVersion(p);
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** The Kysely handle, for queries of the read models. */
  get db(): Kysely<any> {
    return this.#opened.db;
  }

  /** The synchronous handle underneath (used to checkpoint the WAL before a swap); SQLite only. */
  get sqlite(): NonNullable<ProjectionDatabase["sqlite"]> {
    const sqlite = this.#opened.sqlite;
    if (sqlite === undefined) throw new Error(`the projections are in PostgreSQL (${this.#opened.location}), not a SQLite file`);
    return sqlite;
  }

  /** Which engine holds the tables, where, and the identity of what is there now. */
  get database(): ProjectionDatabase {
    return this.#opened;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#opened.db.destroy();
  }

  /** Drops one projection's tables and checkpoints and migrates it again: the next catch-up rebuilds it. */
  async reset(name: string): Promise<void> {
    const p = this.projections.find((x) => x.name === name);
    if (p === undefined) throw new Error(`no projection named "${name}" (known: ${this.projections.map((x) => x.name).join(", ")})`);
    await this.#opened.transaction(async (conn) => {
      await this.#drop(conn, p.name);
      await p.migrate(conn);
      await conn.insertInto("projection_meta").values({ name: p.name, version: p.version }).execute();
    });
  }

  async #bringToVersion(p: Projection): Promise<void> {
    const row = await this.db.selectFrom("projection_meta").select("version").where("name", "=", p.name).executeTakeFirst();
    if (row !== undefined && Number(row.version) === p.version) return;
    await this.#opened.transaction(async (conn) => {
      // Looked at again under the writers' lock: another process may have just migrated it.
      const now = await conn.selectFrom("projection_meta").select("version").where("name", "=", p.name).executeTakeFirst();
      if (now !== undefined && Number(now.version) === p.version) return;
      await this.#drop(conn, p.name);
      await p.migrate(conn);
      await conn.insertInto("projection_meta").values({ name: p.name, version: p.version }).execute();
    });
  }

  async #drop(conn: Kysely<any>, name: string): Promise<void> {
    for (const table of await this.#opened.tables(name, conn)) await conn.schema.dropTable(table).execute();
    await conn.deleteFrom("projection_checkpoints").where("projection", "=", name).execute();
    await conn.deleteFrom("projection_meta").where("name", "=", name).execute();
  }

  async #checkpoints(fileKey?: string): Promise<Map<string, Map<string, Checkpoint>>> {
    let q = this.db.selectFrom("projection_checkpoints").selectAll();
    if (fileKey !== undefined) q = q.where("file", "=", fileKey);
    const out = new Map<string, Map<string, Checkpoint>>();
    for (const r of await q.execute()) {
      const byFile = out.get(r.projection) ?? new Map<string, Checkpoint>();
      byFile.set(r.file, { bytes: Number(r.bytes), seen: Number(r.seen), lines: Number(r.lines), events: Number(r.events), skipped: Number(r.skipped), tornTail: Number(r.torn_tail) === 1 });
      out.set(r.projection, byFile);
    }
    return out;
  }

  /**
   * Applies every trace line past the checkpoints. Safe to call concurrently from several
   * processes. `onlyFiles` (checkpoint keys) limits it to those trace files: a parallel
   * rebuild gives each thread its own sessions.
   */
  async catchUp(onProgress?: (p: CatchUpProgress) => void, onlyFiles?: ReadonlySet<string>): Promise<CatchUpResult> {
    for (;;) {
      const outcome = await this.#catchUpOnce(onProgress, onlyFiles);
      if (outcome !== "moved") return outcome;
    }
  }

  /**
   * Reads chunks of every file that is behind and commits them in batches of many files (one
   * transaction per batch, one `apply` per projection), flushing past a size bound. Returns
   * "moved" when another writer moved a checkpoint first: the caller starts over from the
   * checkpoints as they are now (the batches committed before stay committed).
   */
  async #catchUpOnce(onProgress?: (p: CatchUpProgress) => void, onlyFiles?: ReadonlySet<string>): Promise<CatchUpResult | "moved"> {
    const listed = listTraceFiles(this.root);
    const files = onlyFiles === undefined ? listed : listed.filter((f) => onlyFiles.has(f.key));
    const result: CatchUpResult = { files: files.length, events: 0, skipped: 0, shrunk: [] };
    const all = await this.#checkpoints();
    const cpOf = (p: Projection, file: TraceFile): Checkpoint => all.get(p.name)?.get(file.key) ?? START;
    let batch = new PendingBatch();
    let filesDone = 0;
    for (const file of files) {
      const skip = new Set<string>();
      for (;;) {
        let size: number;
        try {
          size = statSync(file.path).size;
        } catch {
          break;
        }
        const behind = this.projections.filter((p) => !skip.has(p.name) && cpOf(p, file).seen !== size);
        if (behind.length === 0) break;
        const lowest = Math.min(...behind.map((p) => cpOf(p, file).bytes));
        const group = behind.filter((p) => cpOf(p, file).bytes === lowest);
        const from = cpOf(group[0]!, file);
        const chunk = readTraceChunk(file.path, from.bytes, from.lines);
        if (!chunk.intact) {
          if (!result.shrunk.includes(file.key)) result.shrunk.push(file.key);
          for (const p of group) skip.add(p.name);
          continue;
        }
        const events = toEvents(file, chunk);
        for (const p of group) {
          const before = cpOf(p, file);
          const after = advance(before, chunk, events.length);
          batch.add(p, file.key, before, after, events);
          const byFile = all.get(p.name) ?? new Map<string, Checkpoint>();
          byFile.set(file.key, after);
          all.set(p.name, byFile);
        }
        batch.read(events.length, chunk.skipped, chunk.bytes - from.bytes);
        if (batch.full()) {
          if ((await this.#commit(batch))._tag === "CheckpointMoved") return "moved";
          result.events += batch.events;
          result.skipped += batch.skipped;
          batch = new PendingBatch();
        }
      }
      filesDone += 1;
      onProgress?.({ filesDone, filesTotal: files.length, events: result.events + batch.events });
    }
    if (!batch.empty()) {
      if ((await this.#commit(batch))._tag === "CheckpointMoved") return "moved";
      result.events += batch.events;
      result.skipped += batch.skipped;
    }
    return result;
  }

  async #commit(batch: PendingBatch): Promise<CommitResult> {
    return this.#opened.transaction(async (conn) => {
      const fileKeys = [...new Set([...batch.checkpoints.values()].map((c) => c.file))];
      const current = new Map<string, { bytes: number; seen: number }>();
      for (let i = 0; i < fileKeys.length; i += KEY_CHUNK) {
        const rows = await conn.selectFrom("projection_checkpoints").select(["projection", "file", "bytes", "seen"]).where("file", "in", fileKeys.slice(i, i + KEY_CHUNK)).execute();
        for (const r of rows) current.set(`${r.projection}\u0000${r.file}`, { bytes: Number(r.bytes), seen: Number(r.seen) });
      }
      for (const [key, c] of batch.checkpoints) {
        const is = current.get(key) ?? START;
        if (is.bytes !== c.expected.bytes || is.seen !== c.expected.seen) return { _tag: "CheckpointMoved" } as const;
      }
      for (const p of this.projections) {
        const events = batch.events_.get(p.name);
        if (events === undefined) continue;
        const kinds = this.#handled.get(p.name);
        const handled = kinds === undefined ? events : events.filter((e) => kinds.has(e.kind));
        if (handled.length > 0) await p.apply(handled, conn, this.#opened.rowWriter(conn));
      }
      const rows = [...batch.checkpoints.values()].map((c) => ({ projection: c.projection, file: c.file, bytes: c.next.bytes, seen: c.next.seen, lines: c.next.lines, events: c.next.events, skipped: c.next.skipped, torn_tail: c.next.tornTail ? 1 : 0 }));
      for (let i = 0; i < rows.length; i += KEY_CHUNK) {
        await conn
          .insertInto("projection_checkpoints")
          .values(rows.slice(i, i + KEY_CHUNK))
          .onConflict((oc) =>
            oc.columns(["projection", "file"]).doUpdateSet((eb) => ({
              bytes: eb.ref("excluded.bytes"),
              seen: eb.ref("excluded.seen"),
              lines: eb.ref("excluded.lines"),
              events: eb.ref("excluded.events"),
              skipped: eb.ref("excluded.skipped"),
              torn_tail: eb.ref("excluded.torn_tail"),
            })),
          )
          .execute();
      }
      return { _tag: "Committed" } as const;
    });
  }

  /** Per projection: version, files and events applied, skipped lines, and how far behind the traces it is. */
  async status(): Promise<ProjectionStatus[]> {
    const files = listTraceFiles(this.root);
    const sizes = new Map<string, number>();
    for (const f of files) {
      try {
        sizes.set(f.key, statSync(f.path).size);
      } catch {
        // Deleted since it was listed: no lag to report for it.
      }
    }
    const all = await this.#checkpoints();
    const meta = new Map((await this.db.selectFrom("projection_meta").selectAll().execute()).map((r) => [r.name as string, Number(r.version)]));
    return this.projections.map((p) => {
      const cps = all.get(p.name) ?? new Map<string, Checkpoint>();
      let events = 0;
      let skipped = 0;
      for (const cp of cps.values()) {
        events += cp.events;
        skipped += cp.skipped + (cp.tornTail ? 1 : 0);
      }
      let lagBytes = 0;
      let lagFiles = 0;
      for (const [key, size] of sizes) {
        const seen = cps.get(key)?.seen ?? 0;
        if (seen === size) continue;
        lagFiles += 1;
        lagBytes += Math.max(0, size - seen);
      }
      return { name: p.name, version: meta.get(p.name) ?? p.version, files: cps.size, events, skipped, lagBytes, lagFiles };
    });
  }
}

function advance(prev: Checkpoint, chunk: TraceChunk, events: number): Checkpoint {
  return { bytes: chunk.bytes, seen: chunk.seen, lines: chunk.lineCount, events: prev.events + events, skipped: prev.skipped + chunk.skipped, tornTail: chunk.tornTail };
}

function toEvents(file: TraceFile, chunk: TraceChunk): TraceEvent[] {
  return chunk.lines.map(({ line, startByte, endByte, message }) => {
    const ts = parseEventTime(message.timestamp);
    return {
      projectId: file.projectId,
      agentId: file.agentId,
      sessionId: file.sessionId,
      fileIndex: file.fileIndex,
      line,
      endByte,
      path: file.path,
      startByte,
      ts: Number.isFinite(ts) ? ts : 0,
      kind: eventKind(message),
      message,
    };
  });
}
