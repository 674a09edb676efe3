/**
 * The tables of `facts.db` as Kysely sees them: one interface per table, column names as they
 * are in SQLite (snake_case), with SQLite's own types (booleans are 0/1 integers). The stores
 * build their queries against `FactsSchema`, so a misspelt column or a wrong value type is a
 * compile error rather than a runtime one; each store still maps rows to its camelCase shape.
 *
 * `Generated<T>` marks columns the database fills when an insert leaves them out (defaults,
 * AUTOINCREMENT ids). The migrations (facts-migrations.ts) create exactly these tables.
 */
import type { Generated } from "kysely";

export interface UsersTable {
  user_id: string;
  password_hash: string;
  is_admin: Generated<number>;
  password_is_initial: Generated<number>;
  created_at: number;
}

export interface AuthSessionsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  via: Generated<string>;
}

export interface ProjectsTable {
  project_id: string;
  owner_user_id: string;
  name: string | null;
  created_at: number;
}

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  created_at: number;
}

export interface AgentsTable {
  project_id: string;
  agent_id: string;
  name: string | null;
  description: string | null;
  created_at: number;
}

export interface SessionsTable {
  session_id: string;
  project_id: string;
  agent_id: string;
  provider: string | null;
  model_id: string | null;
  workspace: string | null;
  created_at: number;
}

export interface ScheduleStateTable {
  project_id: string;
  agent_id: string;
  name: string;
  creator_user_id: string | null;
  start_at_ms: number | null;
  def_hash: string | null;
  last_slot_ms: number | null;
  last_fired_at: number | null;
  fired_once: Generated<number>;
  missed: Generated<number>;
  invalid_reason: string | null;
}

export interface UiPrefsTable {
  user_id: string;
  prefs_json: string;
}

export interface ServerSettingsTable {
  key: string;
  value: string;
}

export interface SessionCreatorsTable {
  session_id: string;
  user_id: string;
}

export interface LoginAttemptsTable {
  attempt_key: string;
  count: number;
  last_at: number;
}

export interface FactsSchema {
  users: UsersTable;
  auth_sessions: AuthSessionsTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  agents: AgentsTable;
  sessions: SessionsTable;
  schedule_state: ScheduleStateTable;
  ui_prefs: UiPrefsTable;
  server_settings: ServerSettingsTable;
  session_creators: SessionCreatorsTable;
  login_attempts: LoginAttemptsTable;
}
