/**
 * Opening `<root>/facts.db` (db/facts-file.ts): WAL journal (readers never block the writer, and a killed process
 * loses no committed row), `synchronous = NORMAL` (durable across process crashes, which is
 * what a SIGKILL is), foreign keys on, a busy timeout for a CLI tool reading alongside, then
 * the Kysely migrations (db/migrations.ts). Opening is async because Kysely's migrator is;
 * everything after it is synchronous (db/facts-db.ts says why).
 */
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { FactsDb } from "./facts-db.js";
import type { FactsSchema } from "./facts-schema.js";
import { migrateFacts } from "./migrations.js";

export type { Database } from "better-sqlite3";

/** The database and its WAL/SHM companions hold password and session-token hashes: owner only. */
function restrictMode(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}

export async function openDatabase(file: string): Promise<FactsDb> {
  const memory = file === ":memory:" || file === "";
  if (!memory && !existsSync(file)) closeSync(openSync(file, "a", 0o600));
  const sqlite = new BetterSqlite3(file);
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    const query = new Kysely<FactsSchema>({ dialect: new SqliteDialect({ database: sqlite }) });
    await migrateFacts(query);
    if (!memory) restrictMode(file);
    return new FactsDb(sqlite, query);
  } catch (error) {
    sqlite.close();
    throw error;
  }
}
