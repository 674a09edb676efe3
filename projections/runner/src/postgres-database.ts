/**
 * A projections database in PostgreSQL: one schema of the `--database` (by default
 * `penguin_projections`, beside the facts tables in `public`), reached through a small `pg`
 * pool whose connections search that schema only, so the projections' unqualified table names
 * resolve there and a rebuild can build the same names in a fresh schema and swap it in.
 *
 * Why async `pg` under Kysely and not the facts layer's synchronous worker
 * (apps/server/src/db/postgres-sync.ts): the runner and every projection already talk to their
 * database through Kysely's async API; only the bulk row writer used better-sqlite3's
 * synchronous statements, and its `insert` may return a promise the projections await. So the
 * catch-up keeps the event loop free while PostgreSQL works (the synchronous worker would block
 * the server's thread for every statement of a batch), and the projections need no second code path.
 *
 * The writers' lock: a batch runs in one transaction that first takes a transaction-level
 * advisory lock keyed by the schema (`pg_advisory_xact_lock`), PostgreSQL's counterpart of
 * SQLite's `BEGIN IMMEDIATE`: two writers of one schema (two nodes, a CLI beside a server) take
 * turns, and the checkpoints' compare-and-set inside sees the other's commit. A rebuild's swap
 * takes the same lock, so it never lands in the middle of a batch.
 */
import type pg from "pg";
import { Kysely, PostgresDialect, sql } from "kysely";
import { postgresSchemaPlugin } from "./dialect.js";
import { postgresRowWriter } from "./row-writer.js";
import { createRunnerTables, type ProjectionDatabase } from "./database.js";

/** The schema the live projections are kept in. */
export const LIVE_SCHEMA = "penguin_projections";
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const POOL_SIZE = 4;

export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`"${schema}" is not a usable PostgreSQL schema name for projections: use lowercase letters, digits and _`);
  return schema;
}

/** A 63-bit advisory-lock key from a name (FNV-1a 64, as a signed bigint text). */
export function lockKey(name: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const ch of `penguin-projections:${name}`) hash = BigInt.asUintN(64, (hash ^ BigInt(ch.charCodeAt(0))) * 0x100000001b3n);
  return BigInt.asIntN(64, hash).toString();
}

/**
 * `pg`, imported on first use: a SQLite-only process (the CLI reading projections.db) never
 * loads it.
 */
let loaded: Promise<typeof pg> | undefined;
async function loadPg(): Promise<typeof pg> {
  loaded ??= import("pg").then((m) => m.default);
  return loaded;
}

// int8 (bigint columns, count(*)) as numbers, as SQLite gives them; the values the tables
// hold (times in ms, byte offsets, token counts) are far below 2^53.
function typesOf(driver: typeof pg) {
  return { getTypeParser: ((oid: number, format?: "text" | "binary") => (oid === 20 ? (v: string) => Number(v) : driver.types.getTypeParser(oid, format as "text"))) as typeof pg.types.getTypeParser };
}

/**
 * A connection handed out by `pool` keeps an error listener while it is out: the pool's own is on
 * idle connections only, and a connection PostgreSQL drops between two statements of its holder
 * (a restart, `pg_terminate_backend`) would otherwise throw its error as an uncaught exception and
 * stop the process. The holder meets the loss at its next statement; the pool drops the
 * connection when it comes back.
 */
export function keepCheckedOutErrors(pool: pg.Pool): void {
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
}

/** A pool whose connections search `schema` only. */
export async function projectionPool(url: string, schema: string, max = POOL_SIZE): Promise<pg.Pool> {
  const driver = await loadPg();
  const types = typesOf(driver);
  const pool = new driver.Pool({ connectionString: url, max, options: `-c search_path=${checkSchemaName(schema)}`, types, application_name: `penguin-projections ${process.pid}` });
  // An idle connection that dies (PostgreSQL restarted) is dropped by the pool; the next query opens a new one.
  pool.on("error", () => undefined);
  keepCheckedOutErrors(pool);
  return pool;
}

/** Runs `work` on one short-lived connection to `url` (no schema on its path). */
export async function withAdminClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const driver = await loadPg();
  const client = new driver.Client({ connectionString: url, types: typesOf(driver) });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function openPostgresProjections(url: string, schema: string): Promise<ProjectionDatabase> {
  checkSchemaName(schema);
  await withAdminClient(url, async (client) => {
    // Two processes creating the schema at once: the lock makes the second see the first's.
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1::bigint)", [lockKey(`create:${schema}`)]);
    await client.query(`create schema if not exists "${schema}"`);
    await client.query("commit");
  });
  const pool = await projectionPool(url, schema);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), plugins: [postgresSchemaPlugin()] });
  const writerLock = lockKey(schema);
  const opened: ProjectionDatabase = {
    engine: "postgres",
    location: `${redactedUrl(url)} schema ${schema}`,
    file: url,
    schema,
    db,
    sqlite: undefined,
    rowWriter: (conn) => postgresRowWriter(conn),
    async transaction(work) {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${writerLock}::bigint)`.execute(trx);
        return work(trx);
      });
    },
    async tables(name, conn) {
      const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema} and (table_name = ${name} or substr(table_name, 1, ${name.length + 1}) = ${`${name}_`}) order by table_name`.execute(conn ?? db);
      return rows.rows.map((r) => r.name);
    },
    async identity() {
      const rows = await sql<{ oid: string }>`select oid::text as oid from pg_namespace where nspname = ${schema}`.execute(db);
      return rows.rows[0]?.oid;
    },
    async close() {
      await db.destroy();
    },
  };
  try {
    await opened.transaction((conn) => createRunnerTables(conn));
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return opened;
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, "$1***@");
}
