/**
 * The database schema as versioned steps. `PRAGMA user_version` records the last step
 * applied; each step runs once, in order, inside a transaction, so an interrupted upgrade
 * leaves the previous version intact. Steps are only ever appended: never edit a shipped one.
 *
 * What lives here (`facts.db`): users and their browser sessions, projects and members, the
 * agents and sessions indexes (with the session settings the trace does not carry yet), UI
 * prefs and server settings, the trace scan cache, and the scheduler and goal state. Usage,
 * session lists and the trace timeline are projections of the traces, in `projections.db`
 * (version 2 dropped the usage and error tables that used to live here).
 */
import type { Database } from "better-sqlite3";

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    up(db) {
      db.exec(`
        CREATE TABLE users (
          user_id TEXT PRIMARY KEY,
          password_hash TEXT NOT NULL,
          is_admin INTEGER NOT NULL DEFAULT 0,
          password_is_initial INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE auth_sessions (
          token_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          via TEXT NOT NULL DEFAULT 'password'
        );
        CREATE INDEX auth_sessions_by_user ON auth_sessions(user_id);

        CREATE TABLE projects (
          project_id TEXT PRIMARY KEY,
          owner_user_id TEXT NOT NULL REFERENCES users(user_id),
          name TEXT,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE project_members (
          project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
          user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, user_id)
        );
        CREATE INDEX project_members_by_user ON project_members(user_id);
        CREATE TABLE agents (
          project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
          agent_id TEXT NOT NULL,
          name TEXT,
          description TEXT,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, agent_id)
        );

        CREATE TABLE sessions (
          session_id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          provider TEXT,
          model_id TEXT,
          workspace TEXT,
          approval_mode TEXT NOT NULL DEFAULT 'allow-all',
          thinking_level TEXT,
          title TEXT,
          archived_at INTEGER,
          client TEXT NOT NULL DEFAULT 'web' CHECK (client IN ('web', 'cli')),
          has_trace INTEGER NOT NULL DEFAULT 0,
          fork_count INTEGER NOT NULL DEFAULT 0,
          last_active_at INTEGER NOT NULL,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX sessions_by_agent ON sessions(project_id, agent_id, last_active_at DESC);

        CREATE TABLE usage_records (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          ts INTEGER NOT NULL,
          date TEXT NOT NULL,
          project_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          origin_session_id TEXT,
          provider TEXT NOT NULL,
          model_id TEXT NOT NULL,
          cache_read INTEGER NOT NULL,
          cache_write INTEGER NOT NULL,
          output INTEGER NOT NULL,
          total INTEGER NOT NULL,
          status TEXT NOT NULL
        );
        CREATE INDEX usage_by_project_ts ON usage_records(project_id, ts);
        CREATE TABLE error_records (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          ts INTEGER NOT NULL,
          date TEXT NOT NULL,
          project_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          source TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('expected', 'unexpected')),
          code TEXT,
          status TEXT NOT NULL,
          message TEXT NOT NULL
        );
        CREATE INDEX errors_by_project_ts ON error_records(project_id, ts);

        CREATE TABLE schedule_state (
          project_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          name TEXT NOT NULL,
          creator_user_id TEXT,
          start_at_ms INTEGER,
          def_hash TEXT,
          last_slot_ms INTEGER,
          last_fired_at INTEGER,
          fired_once INTEGER NOT NULL DEFAULT 0,
          missed INTEGER NOT NULL DEFAULT 0,
          invalid_reason TEXT,
          PRIMARY KEY (project_id, agent_id, name)
        );
        CREATE TABLE goal_state (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          project_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          objective TEXT NOT NULL,
          status TEXT NOT NULL,
          budget INTEGER,
          used INTEGER NOT NULL DEFAULT 0,
          rounds INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );

        CREATE TABLE ui_prefs (
          user_id TEXT PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
          prefs_json TEXT NOT NULL
        );
        CREATE TABLE server_settings (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );

        CREATE TABLE trace_sessions (
          session_id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          source TEXT,
          file_count INTEGER NOT NULL,
          mtime_ms INTEGER NOT NULL
        );
        CREATE TABLE trace_files (
          path TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          file_index INTEGER NOT NULL,
          size INTEGER NOT NULL,
          mtime_ms INTEGER NOT NULL
        );
        CREATE INDEX trace_files_by_session ON trace_files(session_id);
      `);
    },
  },
  {
    version: 2,
    name: "usage and error records move to projections.db",
    up(db) {
      // Usage is a projection of the traces now (projections/usage): rows written only while
      // this server ran a task, stamped with its clock, are superseded by rows rebuilt from
      // every trace, the CLI's and the SDK's included.
      db.exec(`
        DROP INDEX IF EXISTS usage_by_project_ts;
        DROP TABLE IF EXISTS usage_records;
        DROP INDEX IF EXISTS errors_by_project_ts;
        DROP TABLE IF EXISTS error_records;
      `);
    },
  },
];

/** Applies every step newer than the database's `user_version`. Returns the versions applied. */
export function migrate(db: Database, steps: readonly Migration[] = MIGRATIONS): number[] {
  const current = Number(db.pragma("user_version", { simple: true }));
  const applied: number[] = [];
  for (const step of steps) {
    if (step.version <= current) continue;
    db.transaction(() => {
      step.up(db);
      db.pragma(`user_version = ${step.version}`);
    })();
    applied.push(step.version);
  }
  return applied;
}
