/**
 * Who created each web session, for the one right that is narrower than project
 * membership: changing a session's approval mode and answering its approvals ("control").
 * A member may run tasks in any session of the project, but only the session's creator, a
 * project owner or the admin decides what its tools may do without asking.
 *
 * The rows live in their own table in `web.db`, created here if missing (like the other
 * stores in db/, the only place that writes SQL), rather than as a column of `sessions`: the sessions table belongs to the index and its migrations, and a
 * separate table keeps this access record independent of how the index is rebuilt (a
 * `--reindex` forgets sessions, not who made them). Sessions without a row (indexed from a
 * CLI trace, started by a schedule) have no creator: only owners and the admin control them.
 */
import type { Database } from "better-sqlite3";

export class SessionCreators {
  readonly #insert;
  readonly #select;

  constructor(db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS session_creators (
      session_id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL
    )`);
    this.#insert = db.prepare("INSERT OR REPLACE INTO session_creators (session_id, user_id) VALUES (?, ?)");
    this.#select = db.prepare<[string], { user_id: string }>("SELECT user_id FROM session_creators WHERE session_id = ?");
  }

  record(sessionId: string, userId: string): void {
    this.#insert.run(sessionId, userId);
  }

  creatorOf(sessionId: string): string | undefined {
    return this.#select.get(sessionId)?.user_id;
  }
}
