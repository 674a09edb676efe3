/**
 * All stores, built once at startup and passed to the auth layer, the runtime and the routes:
 * Kysely-built stores over `facts.db` (run synchronously, db/facts-db.ts), and the usage reads
 * over the projections (the live runner's `projections.db`). Nothing outside `db/` writes SQL.
 */
import type { Database } from "better-sqlite3";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { AuthSessionStore } from "./auth-sessions-store.js";
import { LoginAttemptStore } from "./login-attempts-store.js";
import type { FactsDb } from "./facts-db.js";
import { ProjectStore } from "./projects-store.js";
import { ScheduleStore } from "./schedule-store.js";
import { SessionStore } from "./sessions-store.js";
import { SettingsStore } from "./settings-store.js";
import { UsageStore } from "./usage-store.js";
import { UserStore } from "./users-store.js";

export interface Stores {
  /** The facts connection: `transaction` for several store calls that must land together. */
  facts: FactsDb;
  /** The raw better-sqlite3 connection under it (for tests that inspect the file). */
  db: Database;
  users: UserStore;
  authSessions: AuthSessionStore;
  /** Login and password-check attempts (auth/rate-limit.ts), shared by nodes on one PostgreSQL. */
  loginAttempts: LoginAttemptStore;
  projects: ProjectStore;
  sessions: SessionStore;
  usage: UsageStore;
  settings: SettingsStore;
  schedules: ScheduleStore;
}

export function createStores(facts: FactsDb, projections: LiveProjectionRunner): Stores {
  return {
    facts,
    get db() {
      return facts.sqlite;
    },
    users: new UserStore(facts),
    authSessions: new AuthSessionStore(facts),
    loginAttempts: new LoginAttemptStore(facts),
    projects: new ProjectStore(facts),
    sessions: new SessionStore(facts),
    usage: new UsageStore(projections),
    settings: new SettingsStore(facts),
    schedules: new ScheduleStore(facts),
  };
}
