/**
 * Where the server's own facts live: `<root>/facts.db` (users, logins, projects and members,
 * preferences, server settings, schedule bookkeeping, and what the server decided for each
 * session). Derived data (what the traces say) lives in `projections.db`, which can be deleted
 * at any time.
 *
 * Data roots made before the split have `web.db`. On first start it becomes `facts.db`: its
 * write-ahead log is checkpointed into the file and removed (so no committed row stays
 * behind in a `-wal`), then the file is renamed, one atomic step that keeps every user,
 * login, project and member exactly as it was. The migrations then drop what is derived now.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { isPostgresUrl } from "./dialect.js";

export const FACTS_DB = "facts.db";
export const LEGACY_WEB_DB = "web.db";

/**
 * Where the facts live: the `postgres://` URL given (`--database` / PENGUIN_DATABASE_URL),
 * else `<root>/facts.db`. Anything else given is refused with what to give instead.
 */
export function factsTarget(database: string | undefined, root: string): string {
  if (database === undefined || database.trim() === "") return factsDatabaseFile(root);
  if (!isPostgresUrl(database.trim())) {
    throw new Error(`--database (or PENGUIN_DATABASE_URL) must be a postgres:// URL such as postgres://penguin@db-host/penguin; got "${database}". Leave it out to keep facts in ${join(root, FACTS_DB)}.`);
  }
  return database.trim();
}

export function factsDatabaseFile(root: string): string {
  const facts = join(root, FACTS_DB);
  const legacy = join(root, LEGACY_WEB_DB);
  if (!existsSync(facts) && existsSync(legacy)) {
    const old = new BetterSqlite3(legacy);
    try {
      old.pragma("wal_checkpoint(TRUNCATE)");
      old.pragma("journal_mode = DELETE");
    } finally {
      old.close();
    }
    rmSync(`${legacy}-wal`, { force: true });
    rmSync(`${legacy}-shm`, { force: true });
    renameSync(legacy, facts);
  }
  return facts;
}
