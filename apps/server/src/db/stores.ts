/**
 * All stores, built once at startup and passed to the auth layer, the runtime and the routes:
 * prepared-statement stores over `facts.db`, and the usage reads over the projections (the
 * live runner's `projections.db`). Nothing outside `db/` writes SQL.
 */
import type { Database } from "better-sqlite3";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { AuthSessionStore } from "./auth-sessions-store.js";
import { GoalStore } from "./goal-store.js";
import { ProjectStore } from "./projects-store.js";
import { ScheduleStore } from "./schedule-store.js";
import { SessionStore } from "./sessions-store.js";
import { SettingsStore } from "./settings-store.js";
import { TraceCacheStore } from "./trace-cache-store.js";
import { UsageStore } from "./usage-store.js";
import { UserStore } from "./users-store.js";

export interface Stores {
  db: Database;
  users: UserStore;
  authSessions: AuthSessionStore;
  projects: ProjectStore;
  sessions: SessionStore;
  usage: UsageStore;
  settings: SettingsStore;
  traceCache: TraceCacheStore;
  schedules: ScheduleStore;
  goals: GoalStore;
}

export function createStores(db: Database, projections: LiveProjectionRunner): Stores {
  return {
    db,
    users: new UserStore(db),
    authSessions: new AuthSessionStore(db),
    projects: new ProjectStore(db),
    sessions: new SessionStore(db),
    usage: new UsageStore(projections),
    settings: new SettingsStore(db),
    traceCache: new TraceCacheStore(db),
    schedules: new ScheduleStore(db),
    goals: new GoalStore(db),
  };
}
