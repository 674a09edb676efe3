/**
 * Opening `<root>/facts.db` (db/facts-file.ts): WAL journal (readers never block the writer, and a killed process
 * loses no committed row), `synchronous = NORMAL` (durable across process crashes, which is
 * what a SIGKILL is), foreign keys on, a busy timeout for a CLI tool reading alongside, then
 * the Kysely migrations (db/migrations.ts). Opening is async because Kysely's migrator is;
 * everything after it is synchronous (db/facts-db.ts says why).
 *
 * A file that is not a SQLite database (checked by its header before SQLite touches it, so
 * its write-ahead log is never acted on) or that SQLite finds damaged stops the server with
 * FactsDatabaseError: the message names the file and what to do, and nothing is changed.
 *
 * `openFacts` takes either that file or a `postgres://` URL (`--database`): then the same
 * tables live in PostgreSQL (db/dialect.ts lists how the engines differ), reached through one
 * synchronous connection for the stores (db/postgres-sync.ts) and a small pool for Kysely's
 * migrations and the compiler.
 */
import { chmodSync, closeSync, existsSync, openSync, readSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { keepCheckedOutErrors } from "@penguin/projections-runner";
import { isPostgresUrl } from "./dialect.js";
import { FactsDb, PostgresEngine, SqliteEngine } from "./facts-db.js";
import type { FactsSchema } from "./facts-schema.js";
import { migrateFacts } from "./migrations.js";
import { SyncPostgres } from "./postgres-sync.js";

export type { Database } from "better-sqlite3";

/** The database and its WAL/SHM companions hold password and session-token hashes: owner only. */
function restrictMode(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/** The facts database cannot be used as it is; the message names the file and what to do. */
export class FactsDatabaseError extends Error {
  readonly path: string;

  constructor(file: string, why: string, cause?: unknown) {
    super(
      `${file} ${why}, so the server will not start on it. Nothing was changed: its -wal and -shm files (if any) are left in place. ` +
        `Restore ${file} from a backup (keeping the -wal beside it), or move ${file} and its -wal/-shm aside to start with an empty one ` +
        "(users, logins, projects and members are then lost; traces and agent state are kept).",
      cause === undefined ? undefined : { cause },
    );
    this.name = "FactsDatabaseError";
    this.path = file;
  }
}

/**
 * Refuses a file that is not a SQLite database before SQLite opens it: opening and closing
 * it would act on its write-ahead log, which may hold the last committed rows.
 */
function checkHeader(file: string): void {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n === 0) return;
    if (n < head.length || !head.equals(SQLITE_HEADER)) throw new FactsDatabaseError(file, "is not a SQLite database (its first bytes are not the SQLite header)");
  } finally {
    closeSync(fd);
  }
}

/** SQLite's answers for a damaged file. */
function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB" || (typeof code === "string" && code.startsWith("SQLITE_CORRUPT"));
}

export async function openDatabase(file: string): Promise<FactsDb> {
  const memory = file === ":memory:" || file === "";
  if (!memory && !existsSync(file)) closeSync(openSync(file, "a", 0o600));
  if (!memory) checkHeader(file);
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(file);
  } catch (error) {
    throw isCorruption(error) ? new FactsDatabaseError(file, `is damaged (${(error as Error).message})`, error) : error;
  }
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    const query = new Kysely<FactsSchema>({ dialect: new SqliteDialect({ database: sqlite }) });
    await migrateFacts(query);
    if (!memory) restrictMode(file);
    return new FactsDb(new SqliteEngine(sqlite), query);
  } catch (error) {
    sqlite.close();
    throw isCorruption(error) ? new FactsDatabaseError(file, `is damaged (${(error as Error).message})`, error) : error;
  }
}

/** The facts database at `target`: a SQLite file path, or a `postgres://` URL. */
export async function openFacts(target: string): Promise<FactsDb> {
  return isPostgresUrl(target) ? openPostgresFacts(target) : openDatabase(target);
}

/** A PostgreSQL server that cannot be used; the message names it (without its password) and what to do. */
export class FactsConnectionError extends Error {
  constructor(url: string, cause: unknown) {
    super(
      `Could not use the PostgreSQL database ${redactUrl(url)} given by --database or PENGUIN_DATABASE_URL: ${(cause as Error)?.message ?? String(cause)}. ` +
        "Check that the server runs and accepts this user and database (create it with `createdb`), or leave --database out to keep facts in <root>/facts.db.",
      { cause },
    );
    this.name = "FactsConnectionError";
  }
}

/** The URL with its password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable URL)";
  }
}

/** The facts' connection pool (loaded only here: a server on facts.db never pays for the PostgreSQL client). */
export async function postgresFactsPool(url: string): Promise<import("pg").Pool> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => undefined);
  // The pool's listener is on idle connections only; see keepCheckedOutErrors.
  keepCheckedOutErrors(pool);
  return pool;
}

export async function openPostgresFacts(url: string): Promise<FactsDb> {
  const pool = await postgresFactsPool(url);
  const query = new Kysely<FactsSchema>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateFacts(query);
  } catch (error) {
    await query.destroy();
    throw new FactsConnectionError(url, error);
  }
  const connection = new SyncPostgres(url);
  try {
    connection.query("select 1");
  } catch (error) {
    connection.close();
    await query.destroy();
    throw new FactsConnectionError(url, error);
  }
  return new FactsDb(new PostgresEngine(connection, () => void query.destroy()), query);
}
