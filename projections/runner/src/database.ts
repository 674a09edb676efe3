/**
 * Opening a projections database (the SQLite side; PostgreSQL is postgres-database.ts, and both
 * are a `ProjectionDatabase` to the store): better-sqlite3 under Kysely, with the runner's own two
 * tables (`projection_meta`: the version each projection was built at; `projection_checkpoints`:
 * per projection and trace file, the bytes and lines consumed).
 *
 * Two journal modes. `wal` is the live database: readers never block the writer, and the
 * busy timeout lets a CLI and a server share the file. `build` is a fresh file being rebuilt
 * offline, which nobody else may open and which is thrown away whole if anything fails (a
 * crash, an error mid-batch): so no rollback journal at all (`journal_mode = OFF`: not even
 * the in-memory copy of every changed page), no syncs while it fills, the lock taken once for
 * the whole build (`locking_mode = EXCLUSIVE`), then one sync before it is swapped in.
 *
 * A fresh file is given 8 KiB pages (SQLite's default is 4 KiB): a rebuild writes over a
 * hundred megabytes of rows of a few KiB each (the timeline's event blocks, snapshot states
 * and chunks), and larger pages halve the overflow pages those chains need and the page
 * writes (measured on bench row 10 when the chunks still copied every message). The page size
 * is only set while the file is empty; a live file keeps whatever it was made with.
 */
import { chmodSync, existsSync, statSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { rowWriter, type RowWriter } from "./row-writer.js";

export type JournalMode = "wal" | "build";

const BUSY_TIMEOUT_MS = 50;
const BUILD_PAGE_SIZE = 8192;
const LOCK_WAIT_MS = 15_000;

export interface OpenedDatabase {
  file: string;
  sqlite: BetterSqlite3.Database;
  db: Kysely<any>;
}

/**
 * A projections database as the store uses it, whichever engine holds it: a SQLite file
 * (`sqliteProjections`) or a PostgreSQL schema (postgres-database.ts).
 */
export interface ProjectionDatabase {
  readonly engine: "sqlite" | "postgres";
  /** For messages: the file, or the database and schema. */
  readonly location: string;
  /** What the store was opened on: the file path or the postgres:// URL. */
  readonly file: string;
  /** The PostgreSQL schema; undefined on SQLite. */
  readonly schema: string | undefined;
  readonly db: Kysely<any>;
  /** The better-sqlite3 handle; undefined on PostgreSQL. */
  readonly sqlite: BetterSqlite3.Database | undefined;
  /** Runs `work` in one write transaction, writers of the same database taking turns. */
  transaction<T>(work: (conn: Kysely<any>) => Promise<T>): Promise<T>;
  /** The row writer for a transaction's connection. */
  rowWriter(conn: Kysely<any>): RowWriter;
  /** The projection's own tables: `<name>` and `<name>_*` (the contract's naming rule). */
  tables(name: string, conn?: Kysely<any>): Promise<string[]>;
  /** Which database is there now (a file's inode, a schema's oid); undefined when it is gone. */
  identity(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Which file is at the path: inode and birth time (an inode number alone is soon reused). */
export function fileIdentity(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

export function sqliteProjections(opened: OpenedDatabase): ProjectionDatabase {
  const rows = rowWriter(opened.sqlite);
  return {
    engine: "sqlite",
    location: opened.file,
    file: opened.file,
    schema: undefined,
    db: opened.db,
    sqlite: opened.sqlite,
    transaction: (work) => immediateTransaction(opened.db, work),
    rowWriter: () => rows,
    tables: (name, conn) => projectionTables(conn ?? opened.db, name),
    identity: async () => fileIdentity(opened.file),
    close: () => opened.db.destroy(),
  };
}

/**
 * Opens `file`, waiting (asynchronously, with backoff) while another connection holds the lock
 * the opening needs: two processes that open a new file at once (a CLI watcher beside a run, a
 * CLI beside the server) both switch it to WAL and create the runner's tables, and the short
 * busy timeout would otherwise fail the second with "database is locked".
 */
export async function openProjectionDatabase(file: string, journal: JournalMode = "wal"): Promise<OpenedDatabase> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      return await openOnce(file, journal);
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

async function openOnce(file: string, journal: JournalMode): Promise<OpenedDatabase> {
  const sqlite = new BetterSqlite3(file);
  try {
    return await setUp(file, sqlite, journal);
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

async function setUp(file: string, sqlite: BetterSqlite3.Database, journal: JournalMode): Promise<OpenedDatabase> {
  if (journal === "wal") {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
  } else {
    // Before anything is written: the page size of an existing database cannot change.
    sqlite.pragma(`page_size = ${BUILD_PAGE_SIZE}`);
    sqlite.pragma("journal_mode = OFF");
    sqlite.pragma("synchronous = OFF");
    sqlite.pragma("locking_mode = EXCLUSIVE");
  }
  // Short: a writer that finds the lock taken waits asynchronously (immediateTransaction),
  // so a second writer in the same process never blocks the thread the holder needs.
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Titles and prompts are in here: owner only, the write-ahead log and shared memory too.
  sqlite.prepare("select count(*) from sqlite_master").get();
  if (file !== ":memory:") for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
  await createRunnerTables(db);
  return { file, sqlite, db };
}

/** The runner's own two tables (see the top of this file), when missing. */
export async function createRunnerTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("projection_meta")
    .ifNotExists()
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("version", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("projection_checkpoints")
    .ifNotExists()
    .addColumn("projection", "text", (c) => c.notNull())
    .addColumn("file", "text", (c) => c.notNull())
    .addColumn("bytes", "integer", (c) => c.notNull())
    .addColumn("seen", "integer", (c) => c.notNull())
    .addColumn("lines", "integer", (c) => c.notNull())
    .addColumn("events", "integer", (c) => c.notNull())
    .addColumn("skipped", "integer", (c) => c.notNull())
    .addColumn("torn_tail", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("projection_checkpoints_pk", ["projection", "file"])
    .execute();
}

/** The projection's own tables: `<name>` and `<name>_*` (the contract's naming rule). */
export async function projectionTables(db: Kysely<any>, name: string): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and (name = ${name} or substr(name, 1, ${name.length + 1}) = ${`${name}_`}) order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** SQLite's "database is locked" (another connection holds what this statement needs). */
export function isBusy(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error.code === "SQLITE_BUSY" || error.code === "SQLITE_LOCKED");
}

async function beginImmediate(conn: Kysely<any>): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      await sql`begin immediate`.execute(conn);
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Runs `work` in one `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so a
 * second writer of the same file (another process, or another store in this one) waits for
 * it, asynchronously, instead of failing mid-batch. */
export async function immediateTransaction<T>(db: Kysely<any>, work: (conn: Kysely<any>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await beginImmediate(conn);
    try {
      const out = await work(conn);
      await sql`commit`.execute(conn);
      return out;
    } catch (error) {
      await sql`rollback`.execute(conn);
      throw error;
    }
  });
}
