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

export const FACTS_DB = "facts.db";
export const LEGACY_WEB_DB = "web.db";

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
