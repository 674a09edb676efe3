/**
 * The facts.db schema as Kysely migrations. Kysely's Migrator keeps the names of the steps
 * applied in `kysely_migration` and runs the missing ones in name order. Steps are only ever
 * appended: never edit a shipped one.
 *
 * Three things on top of the plain Migrator:
 *   - One transaction for the whole upgrade. Kysely's SQLite adapter runs migrations without
 *     one (it declares no transactional DDL), so a process killed mid-step could leave half a
 *     step applied and unrecorded. SQLite's DDL is transactional, so `migrateFacts` wraps the
 *     Migrator in `BEGIN IMMEDIATE … COMMIT` on the same connection: an interrupted upgrade
 *     leaves the previous version intact.
 *   - Adoption of databases from before Kysely. Those recorded their schema version in
 *     `PRAGMA user_version` (1: the initial schema; 2: the usage tables dropped). When there is
 *     no `kysely_migration` table yet, the steps up to that version are recorded as applied
 *     (not run again), so a web.db or facts.db made by the hand-written migrations upgrades in
 *     place, every row kept.
 *   - `user_version` still moves with the schema (set to the number of steps applied), so a
 *     server from before Kysely that opens a newer file finds nothing of its own to run.
 *
 * What lives here (`facts.db`): users and their browser sessions, projects and members, the
 * agents and sessions indexes (which project and agent each session is in), UI prefs and
 * server settings, who created each session, and the scheduler's bookkeeping. Usage, session
 * lists, session facts and the trace timeline are projections of the traces, in
 * `projections.db` (step 2 dropped the usage and error tables that used to live here; step 5
 * the trace scan cache and the sessions' last activity and trace flag; step 6 the session
 * facts and the goal table).
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { autoId, columnExists, engineOf, intType, tableExists } from "./dialect.js";

/** The hand-written versions (user_version) and the step each one corresponds to. */
const STEPS_BEFORE_KYSELY: readonly string[] = ["0001_initial_schema", "0002_usage_moves_to_projections"];

export const MIGRATION_TABLE = "kysely_migration";

/** Every step, by name (the Migrator runs them in name order). */
export const FACTS_MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001_initial_schema": {
    // `int` and `autoId` are SQLite's `integer` and `autoincrement` as this step always wrote
    // them; on PostgreSQL they are `bigint` and an identity (db/dialect.ts).
    async up(db: Kysely<any>) {
      const int = intType(db);
      await db.schema
        .createTable("users")
        .addColumn("user_id", "text", (c) => c.primaryKey())
        .addColumn("password_hash", "text", (c) => c.notNull())
        .addColumn("is_admin", int, (c) => c.notNull().defaultTo(0))
        .addColumn("password_is_initial", int, (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", int, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("auth_sessions")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.user_id").onDelete("cascade"))
        .addColumn("created_at", int, (c) => c.notNull())
        .addColumn("expires_at", int, (c) => c.notNull())
        .addColumn("via", "text", (c) => c.notNull().defaultTo("password"))
        .execute();
      await db.schema.createIndex("auth_sessions_by_user").on("auth_sessions").column("user_id").execute();

      await db.schema
        .createTable("projects")
        .addColumn("project_id", "text", (c) => c.primaryKey())
        .addColumn("owner_user_id", "text", (c) => c.notNull().references("users.user_id"))
        .addColumn("name", "text")
        .addColumn("created_at", int, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("project_members")
        .addColumn("project_id", "text", (c) => c.notNull().references("projects.project_id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("users.user_id").onDelete("cascade"))
        .addColumn("created_at", int, (c) => c.notNull())
        .addPrimaryKeyConstraint("project_members_pk", ["project_id", "user_id"])
        .execute();
      await db.schema.createIndex("project_members_by_user").on("project_members").column("user_id").execute();
      await db.schema
        .createTable("agents")
        .addColumn("project_id", "text", (c) => c.notNull().references("projects.project_id").onDelete("cascade"))
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("name", "text")
        .addColumn("description", "text")
        .addColumn("created_at", int, (c) => c.notNull())
        .addPrimaryKeyConstraint("agents_pk", ["project_id", "agent_id"])
        .execute();

      await db.schema
        .createTable("sessions")
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("project_id", "text", (c) => c.notNull())
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("provider", "text")
        .addColumn("model_id", "text")
        .addColumn("workspace", "text")
        .addColumn("approval_mode", "text", (c) => c.notNull().defaultTo("allow-all"))
        .addColumn("thinking_level", "text")
        .addColumn("title", "text")
        .addColumn("archived_at", int)
        .addColumn("client", "text", (c) => c.notNull().defaultTo("web").check(sql`client in ('web', 'cli')`))
        .addColumn("has_trace", int, (c) => c.notNull().defaultTo(0))
        .addColumn("fork_count", int, (c) => c.notNull().defaultTo(0))
        .addColumn("last_active_at", int, (c) => c.notNull())
        .addColumn("created_at", int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex("sessions_by_agent").on("sessions").columns(["project_id", "agent_id", "last_active_at desc"]).execute();

      // Usage and errors were recorded here before they became a projection (dropped by step 2).
      await autoId(db, db.schema.createTable("usage_records"), "id")
        .addColumn("ts", int, (c) => c.notNull())
        .addColumn("date", "text", (c) => c.notNull())
        .addColumn("project_id", "text", (c) => c.notNull())
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("origin_session_id", "text")
        .addColumn("provider", "text", (c) => c.notNull())
        .addColumn("model_id", "text", (c) => c.notNull())
        .addColumn("cache_read", int, (c) => c.notNull())
        .addColumn("cache_write", int, (c) => c.notNull())
        .addColumn("output", int, (c) => c.notNull())
        .addColumn("total", int, (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("usage_by_project_ts").on("usage_records").columns(["project_id", "ts"]).execute();
      await autoId(db, db.schema.createTable("error_records"), "id")
        .addColumn("ts", int, (c) => c.notNull())
        .addColumn("date", "text", (c) => c.notNull())
        .addColumn("project_id", "text", (c) => c.notNull())
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('expected', 'unexpected')`))
        .addColumn("code", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("message", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("errors_by_project_ts").on("error_records").columns(["project_id", "ts"]).execute();

      await db.schema
        .createTable("schedule_state")
        .addColumn("project_id", "text", (c) => c.notNull())
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("creator_user_id", "text")
        .addColumn("start_at_ms", int)
        .addColumn("def_hash", "text")
        .addColumn("last_slot_ms", int)
        .addColumn("last_fired_at", int)
        .addColumn("fired_once", int, (c) => c.notNull().defaultTo(0))
        .addColumn("missed", int, (c) => c.notNull().defaultTo(0))
        .addColumn("invalid_reason", "text")
        .addPrimaryKeyConstraint("schedule_state_pk", ["project_id", "agent_id", "name"])
        .execute();
      await autoId(db, db.schema.createTable("goal_state"), "id")
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("project_id", "text", (c) => c.notNull())
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("objective", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("budget", int)
        .addColumn("used", int, (c) => c.notNull().defaultTo(0))
        .addColumn("rounds", int, (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", int, (c) => c.notNull())
        .addColumn("updated_at", int, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("ui_prefs")
        .addColumn("user_id", "text", (c) => c.primaryKey().references("users.user_id").onDelete("cascade"))
        .addColumn("prefs_json", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("server_settings")
        .addColumn("key", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("trace_sessions")
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("project_id", "text", (c) => c.notNull())
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("source", "text")
        .addColumn("file_count", int, (c) => c.notNull())
        .addColumn("mtime_ms", int, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("trace_files")
        .addColumn("path", "text", (c) => c.primaryKey())
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("file_index", int, (c) => c.notNull())
        .addColumn("size", int, (c) => c.notNull())
        .addColumn("mtime_ms", int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex("trace_files_by_session").on("trace_files").column("session_id").execute();
    },
  },
  "0002_usage_moves_to_projections": {
    // Usage is a projection of the traces now (projections/usage): rows written only while
    // this server ran a task, stamped with its clock, are superseded by rows rebuilt from
    // every trace, the CLI's and the SDK's included.
    async up(db: Kysely<any>) {
      await db.schema.dropIndex("usage_by_project_ts").ifExists().execute();
      await db.schema.dropTable("usage_records").ifExists().execute();
      await db.schema.dropIndex("errors_by_project_ts").ifExists().execute();
      await db.schema.dropTable("error_records").ifExists().execute();
    },
  },
  "0003_session_creators": {
    // Who created each web session (auth/access.ts). Before Kysely the store created this
    // table itself when missing, so a file from then may have it already: `if not exists`.
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("session_creators")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0004_session_sandbox_network": {
    // Whether a session's sandboxed commands may use the network; off unless a project owner
    // or the admin allowed it for that session.
    async up(db: Kysely<any>) {
      await db.schema.alterTable("sessions").addColumn("sandbox_network", intType(db), (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  "0005_trace_derived_data_moves_to_projections": {
    // facts.db keeps only what the server decides. The trace scan cache (`trace_files`: which
    // files a session has, with size and mtime; `trace_sessions`: the run source and file
    // count read from the trace meta), a session's last activity (`last_active_at`: the
    // latest trace event, or the wall clock when the server's run ended) and whether it has a
    // trace (`has_trace`) are copies of what the traces say; the sessions projection
    // (projections.db) and the trace folders have them, so they are read there. Every other
    // row and column is kept as it was.
    async up(db: Kysely<any>) {
      await db.schema.dropIndex("trace_files_by_session").ifExists().execute();
      await db.schema.dropTable("trace_files").ifExists().execute();
      await db.schema.dropTable("trace_sessions").ifExists().execute();
      // SQLite refuses to drop an indexed column: the index goes first, and the list's
      // per-agent lookup gets one on the columns that remain.
      await db.schema.dropIndex("sessions_by_agent").ifExists().execute();
      for (const column of ["last_active_at", "has_trace"]) {
        if (await columnExists(db, "sessions", column)) await db.schema.alterTable("sessions").dropColumn(column).execute();
      }
      await db.schema.createIndex("sessions_by_agent").on("sessions").columns(["project_id", "agent_id", "created_at desc"]).execute();
    },
  },
  "0006_session_facts_move_to_the_trace": {
    // A session's approval mode, thinking level, title, archive state, network allowance, fork
    // count and client, and its goals, are facts its trace records (`settings_changed`,
    // `session_title`, `session_archived`, `forked_from`, `goal_started`, `goal_finished`); the
    // server reads them from the loaded session's fold or the sessions projection. The copies
    // go: a column kept here could only disagree with the trace (an SDK session's `deny-all`
    // read back as this table's default `allow-all` was one such disagreement).
    async up(db: Kysely<any>) {
      await db.schema.dropTable("goal_state").ifExists().execute();
      for (const column of ["approval_mode", "thinking_level", "title", "archived_at", "client", "fork_count", "sandbox_network"]) {
        if (await columnExists(db, "sessions", column)) await db.schema.alterTable("sessions").dropColumn(column).execute();
      }
    },
  },
  "0007_login_attempts": {
    // Login and password-check attempts per key (auth/rate-limit.ts): kept here rather than in
    // one process's memory, so server nodes sharing a PostgreSQL share the limits and a
    // lockout cannot be dodged by trying another node. Losing the table only resets waits.
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("login_attempts")
        .addColumn("attempt_key", "text", (c) => c.primaryKey())
        .addColumn("count", intType(db), (c) => c.notNull())
        .addColumn("last_at", intType(db), (c) => c.notNull())
        .execute();
    },
  },
};

class FixedMigrations implements MigrationProvider {
  readonly #steps: Readonly<Record<string, Migration>>;
  constructor(steps: Readonly<Record<string, Migration>>) {
    this.#steps = steps;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...this.#steps };
  }
}

/** Records the steps a pre-Kysely database already has (per its user_version) as applied. */
async function adoptHandWrittenVersion(db: Kysely<any>): Promise<void> {
  if (await tableExists(db, MIGRATION_TABLE)) return;
  const version = Number((await sql<{ user_version: number }>`pragma user_version`.execute(db)).rows[0]?.user_version ?? 0);
  // The same table the Migrator would create, so it finds it and carries on.
  await db.schema
    .createTable(MIGRATION_TABLE)
    .addColumn("name", "varchar(255)", (c) => c.notNull().primaryKey())
    .addColumn("timestamp", "varchar(255)", (c) => c.notNull())
    .execute();
  const adopted = STEPS_BEFORE_KYSELY.slice(0, Math.max(0, Math.min(version, STEPS_BEFORE_KYSELY.length)));
  const at = new Date().toISOString();
  for (const name of adopted) await db.insertInto(MIGRATION_TABLE).values({ name, timestamp: at }).execute();
}

/**
 * Brings the database to the latest step, in one transaction. Returns the names of the steps
 * it ran (not those adopted from a pre-Kysely user_version).
 */
export async function migrateFacts(db: Kysely<any>, steps: Readonly<Record<string, Migration>> = FACTS_MIGRATIONS): Promise<string[]> {
  if (engineOf(db) === "postgres") {
    // Kysely's Migrator runs PostgreSQL's steps in one transaction under an advisory lock,
    // so nodes that start together migrate once; there is no pre-Kysely version to adopt.
    const { error, results } = await new Migrator({ db, provider: new FixedMigrations(steps) }).migrateToLatest();
    if (error !== undefined) throw error;
    return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  }
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      await adoptHandWrittenVersion(conn);
      const { error, results } = await new Migrator({ db: conn, provider: new FixedMigrations(steps) }).migrateToLatest();
      if (error !== undefined) throw error;
      const applied = (await conn.selectFrom(MIGRATION_TABLE).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst())?.n ?? 0;
      await sql.raw(`pragma user_version = ${Number(applied)}`).execute(conn);
      await sql`commit`.execute(conn);
      return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    } catch (error) {
      await sql`rollback`.execute(conn);
      throw error;
    }
  });
}
