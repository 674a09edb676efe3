// A projections database's whole content, comparable across rebuilds: every table, each row as
// JSON, sorted. Works on either engine (a SQLite file, or a PostgreSQL schema), so the tests that
// compare a rebuild with the live runner's tables run the same on both.
import { sql } from "kysely";
import type { ProjectionStore } from "@penguin/projections-runner";

export async function dumpProjections(store: ProjectionStore): Promise<Record<string, string[]>> {
  const { engine, schema } = store.database;
  const tables =
    engine === "sqlite"
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(store.db)).rows
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema} order by table_name`.execute(store.db)).rows;
  const out: Record<string, string[]> = {};
  for (const { name } of tables) out[name] = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(store.db)).rows.map((r) => JSON.stringify(r)).sort();
  return out;
}
