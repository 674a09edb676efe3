// A projections database's whole content, comparable across rebuilds: every table, each row as
// JSON, sorted. Works on either engine (a SQLite file, or a PostgreSQL schema), so the tests that
// compare a rebuild with the live runner's tables run the same on both.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { expect, vi } from "vitest";
import type { Harness } from "./harness.js";
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

/**
 * Deletes a server's projections while it is down, whichever engine holds them: the SQLite file
 * and its companions, or the PostgreSQL schema (`target`: the store's `database.file`, a URL).
 */
export async function deleteProjections(root: string, target: string): Promise<void> {
  if (!/^postgres(ql)?:\/\//.test(target)) {
    for (const f of ["projections.db", "projections.db-wal", "projections.db-shm"]) rmSync(join(root, f), { force: true });
    return;
  }
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  try {
    await client.query("drop schema if exists penguin_projections cascade");
  } finally {
    await client.end();
  }
}

/** Until the projection holds the titler's title for each of these sessions (the titler's line, appended after a run, is read). */
export async function untilTitled(harness: Harness, sessionIds: string[]): Promise<void> {
  await vi.waitFor(
    async () => {
      await harness.server.context.projections.refresh();
      const rows = await harness.server.context.projections.read((db) => db.selectFrom("sessions").select(["session_id", "title_set"]).where("session_id", "in", sessionIds).execute());
      expect(rows.filter((r: { title_set: number }) => Number(r.title_set) === 1)).toHaveLength(sessionIds.length);
    },
    { timeout: 20_000, interval: 20 },
  );
}

