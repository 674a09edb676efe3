/**
 * `penguin server migrate-db --to postgres://…`: moves a data root's facts (facts.db: users,
 * logins, projects, members, agents, sessions index, prefs, settings, schedules, session
 * creators) into an empty PostgreSQL database, so a single server can become the first node
 * of several. Traces and the rest of the data root stay where they are.
 *
 * Both ends are brought to the latest migration first, so the copy is table to table with the
 * same columns. The copy runs in one PostgreSQL transaction (nothing lands unless everything
 * does), in foreign-key order, and ends by comparing every table's row count on both sides.
 * The SQLite file is left untouched: it is the backup until the operator removes it. A
 * target that already holds users is refused, so the command never merges two installs.
 */
import { existsSync } from "node:fs";
import type { Kysely } from "kysely";
import { openDatabase, openPostgresFacts, redactUrl } from "./database.js";
import type { FactsDb } from "./facts-db.js";
import { factsDatabaseFile } from "./facts-file.js";
import type { FactsSchema } from "./facts-schema.js";
import { isPostgresUrl } from "./dialect.js";

/** Every facts table, parents before children (the order the rows must arrive in). */
export const FACTS_TABLES = [
  "users",
  "auth_sessions",
  "projects",
  "project_members",
  "agents",
  "sessions",
  "schedule_state",
  "ui_prefs",
  "server_settings",
  "session_creators",
  "login_attempts",
] as const satisfies readonly (keyof FactsSchema)[];

/** Rows per insert: well under PostgreSQL's 65535 parameters for the widest table. */
const BATCH = 500;

export interface MoveReport {
  /** Rows copied per table. */
  copied: Record<string, number>;
}

export class MoveRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MoveRefusedError";
  }
}

export async function moveFactsToPostgres(root: string, url: string): Promise<MoveReport> {
  if (!isPostgresUrl(url)) throw new MoveRefusedError(`--to must be a postgres:// URL such as postgres://penguin@db-host/penguin; got "${url}"`);
  const file = factsDatabaseFile(root);
  if (!existsSync(file)) throw new MoveRefusedError(`${file} does not exist: give --root the data root a server ran on (the folder holding facts.db)`);
  const source = await openDatabase(file);
  let target: FactsDb | undefined;
  try {
    target = await openPostgresFacts(url);
    const held = count(target, "users");
    if (held > 0) {
      throw new MoveRefusedError(
        `${redactUrl(url)} already holds ${held} user(s): migrate-db only fills an empty database. Create a fresh one (createdb) and give its URL, or keep using this one as it is.`,
      );
    }
    const copied: Record<string, number> = {};
    const into = target;
    into.transaction(() => {
      for (const table of FACTS_TABLES) copied[table] = copyTable(source, into, table);
    });
    for (const table of FACTS_TABLES) {
      const there = count(into, table);
      if (there !== copied[table]) throw new Error(`after the copy ${table} holds ${there} rows in PostgreSQL but ${copied[table]} in facts.db`);
    }
    return { copied };
  } finally {
    source.close();
    target?.close();
  }
}

function copyTable(source: FactsDb, target: FactsDb, table: (typeof FACTS_TABLES)[number]): number {
  const rows = source.all((source.query as Kysely<any>).selectFrom(table).selectAll()) as Record<string, unknown>[];
  for (let i = 0; i < rows.length; i += BATCH) target.run((target.query as Kysely<any>).insertInto(table).values(rows.slice(i, i + BATCH)));
  return rows.length;
}

function count(facts: FactsDb, table: string): number {
  const row = facts.first((facts.query as Kysely<any>).selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"))) as { n: number } | undefined;
  return Number(row?.n ?? 0);
}
