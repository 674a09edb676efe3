/**
 * Offline rebuild into PostgreSQL, with the guarantee SQLite's file swap gives: the projections
 * are built from every trace line into a fresh schema (`<live>_build_<pid>_<random>`), and only
 * when that build has finished is it swapped in, in one transaction that renames the live
 * schema away, renames the fresh one to the live name and drops the old one. A reader sees the
 * old tables or the new ones, never half of them; a build that fails, or a process killed
 * mid-build, leaves the live schema as it was (the fresh one is dropped on failure, and a killed
 * build's leftover is dropped by the next rebuild).
 *
 * A build in progress holds a session advisory lock named after its schema; the next rebuild
 * drops every `<live>_build_*` schema whose lock it can take (its builder is gone), never one
 * still being built. The swap takes the live schema's writers' lock (postgres-database.ts), so
 * it waits for a catch-up batch in flight and never lands inside one; the live runners' pools
 * search the schema by name, so their next statement reads the new tables.
 *
 * `only` rebuilds one projection: the fresh schema starts as a copy of the live tables (as
 * SQLite's `VACUUM INTO`), that projection is dropped and replayed there, and the copy swapped in.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { Projection } from "./contract.js";
import { checkSchemaName, LIVE_SCHEMA, lockKey, withAdminClient } from "./postgres-database.js";
import { ProjectionStore, type CatchUpProgress, type CatchUpResult } from "./store.js";

export interface PostgresRebuildOptions {
  root: string;
  url: string;
  /** The live schema (default `penguin_projections`). */
  schema?: string | undefined;
  projections: readonly Projection[];
  only?: string | undefined;
  onProgress?: ((p: CatchUpProgress) => void) | undefined;
}

const quoted = (name: string): string => `"${checkSchemaName(name)}"`;

export async function postgresSchemaExists(url: string, schema: string): Promise<boolean> {
  return withAdminClient(url, async (c) => ((await c.query("select 1 from pg_namespace where nspname = $1", [schema])).rowCount ?? 0) > 0);
}

/** The session advisory lock a build of schema `schema` holds while it runs. */
export function buildLockKey(schema: string): string {
  return lockKey(`build:${schema}`);
}

/** Drops the build schemas of `live` left by builders that are gone (their lock is free). */
async function dropAbandonedBuilds(client: pg.Client, live: string): Promise<void> {
  const found = await client.query<{ name: string }>("select nspname as name from pg_namespace where starts_with(nspname, $1)", [`${live}_build_`]);
  for (const { name } of found.rows) {
    const key = buildLockKey(name);
    const taken = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1::bigint) as ok", [key]);
    if (taken.rows[0]?.ok !== true) continue;
    try {
      await client.query(`drop schema if exists ${quoted(name)} cascade`);
    } finally {
      await client.query("select pg_advisory_unlock($1::bigint)", [key]);
    }
  }
}

/** Copies every table of `from` into `to` (structure, keys, indexes and rows). */
async function copySchema(client: pg.Client, from: string, to: string): Promise<void> {
  const tables = await client.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by table_name", [from]);
  for (const { name } of tables.rows) {
    const table = `"${name.replace(/"/g, '""')}"`;
    await client.query(`create table ${quoted(to)}.${table} (like ${quoted(from)}.${table} including all)`);
    await client.query(`insert into ${quoted(to)}.${table} select * from ${quoted(from)}.${table}`);
  }
}

/** Builds into a fresh schema and swaps it in; returns what the catch-up read. */
export async function rebuildIntoPostgres(options: PostgresRebuildOptions): Promise<CatchUpResult> {
  const live = checkSchemaName(options.schema ?? LIVE_SCHEMA);
  const fresh = checkSchemaName(`${live}_build_${process.pid}_${randomBytes(4).toString("hex")}`);
  return withAdminClient(options.url, async (client) => {
    await dropAbandonedBuilds(client, live);
    // Held until the build is swapped in or dropped (or this process dies): marks it as in progress.
    await client.query("select pg_advisory_lock($1::bigint)", [buildLockKey(fresh)]);
    let result: CatchUpResult;
    try {
      await client.query(`create schema ${quoted(fresh)}`);
      if (options.only !== undefined && (await client.query("select 1 from pg_namespace where nspname = $1", [live])).rowCount) {
        // The live tables at their current versions first, so the copy holds what the others need.
        await (await ProjectionStore.open({ file: options.url, schema: live, root: options.root, projections: options.projections })).close();
        await client.query("begin");
        await client.query("select pg_advisory_xact_lock($1::bigint)", [lockKey(live)]);
        await copySchema(client, live, fresh);
        await client.query("commit");
      }
      const store = await ProjectionStore.open({ file: options.url, schema: fresh, root: options.root, projections: options.projections });
      try {
        if (options.only !== undefined) await store.reset(options.only);
        result = await store.catchUp(options.onProgress);
      } finally {
        await store.close();
      }
      const old = `${live}_old_${process.pid}_${randomBytes(4).toString("hex")}`;
      await client.query("begin");
      await client.query("select pg_advisory_xact_lock($1::bigint)", [lockKey(live)]);
      const hadLive = ((await client.query("select 1 from pg_namespace where nspname = $1", [live])).rowCount ?? 0) > 0;
      if (hadLive) await client.query(`alter schema ${quoted(live)} rename to ${quoted(old)}`);
      await client.query(`alter schema ${quoted(fresh)} rename to ${quoted(live)}`);
      if (hadLive) await client.query(`drop schema ${quoted(old)} cascade`);
      await client.query("commit");
    } catch (error) {
      await client.query("rollback").catch(() => undefined);
      await client.query(`drop schema if exists ${quoted(fresh)} cascade`).catch(() => undefined);
      throw error;
    } finally {
      await client.query("select pg_advisory_unlock_all()").catch(() => undefined);
    }
    return result;
  });
}
