/**
 * Opening `<root>/facts.db` (db/facts-file.ts): WAL journal (readers never block the writer, and a killed process
 * loses no committed row), `synchronous = NORMAL` (durable across process crashes, which is
 * what a SIGKILL is), foreign keys on, a busy timeout for a CLI tool reading alongside, then
 * the migrations. The handle is synchronous on purpose: better-sqlite3 calls are microseconds
 * and keep ordering trivial.
 */
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { migrate } from "./migrations.js";

export type { Database } from "better-sqlite3";

/** The database and its WAL/SHM companions hold password and session-token hashes: owner only. */
function restrictMode(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}

export function openDatabase(file: string): Database {
  const memory = file === ":memory:" || file === "";
  if (!memory && !existsSync(file)) closeSync(openSync(file, "a", 0o600));
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);
  if (!memory) restrictMode(file);
  return db;
}
