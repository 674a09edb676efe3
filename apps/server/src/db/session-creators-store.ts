/**
 * Who created each web session, for the one right that is narrower than project
 * membership: changing a session's approval mode and answering its approvals ("control").
 * A member may run tasks in any session of the project, but only the session's creator, a
 * project owner or the admin decides what its tools may do without asking.
 *
 * The rows live in their own table of `facts.db` (migration 0003) rather than as a column of
 * `sessions`: the sessions table belongs to the index, and a separate table keeps this access
 * record independent of how the index is rebuilt (a `--reindex` forgets sessions, not who
 * made them). Sessions without a row (indexed from a CLI trace, started by a schedule) have
 * no creator: only owners and the admin control them.
 */
import type { FactsDb } from "./facts-db.js";

export class SessionCreators {
  readonly #facts: FactsDb;
  readonly #creatorOf;

  constructor(facts: FactsDb) {
    this.#facts = facts;
    this.#creatorOf = facts.prepare(1, (sessionId: string) => facts.query.selectFrom("session_creators").select("user_id").where("session_id", "=", sessionId));
  }

  record(sessionId: string, userId: string): void {
    // An upsert both engines spell alike (SQLite's `replace into` is not PostgreSQL's).
    this.#facts.run(
      this.#facts.query
        .insertInto("session_creators")
        .values({ session_id: sessionId, user_id: userId })
        .onConflict((oc) => oc.column("session_id").doUpdateSet((eb) => ({ user_id: eb.ref("excluded.user_id") }))),
    );
  }

  creatorOf(sessionId: string): string | undefined {
    return this.#creatorOf.first(sessionId)?.user_id;
  }
}
