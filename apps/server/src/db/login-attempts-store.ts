/**
 * The login limiter's counts (auth/rate-limit.ts `AttemptBook`) in the facts database, so
 * every server node on one PostgreSQL sees the same waits. `atomically` makes check-and-count
 * one transaction; on PostgreSQL it also takes a transaction-scoped advisory lock on the key,
 * so two nodes admitting the same key queue behind each other (SQLite's single writer already
 * gives that within a file).
 */
import type { AttemptBook, Attempts } from "../auth/rate-limit.js";
import type { FactsDb } from "./facts-db.js";

export class LoginAttemptStore implements AttemptBook {
  readonly #facts: FactsDb;

  constructor(facts: FactsDb) {
    this.#facts = facts;
  }

  get(key: string): Attempts | undefined {
    const r = this.#facts.first(this.#facts.query.selectFrom("login_attempts").select(["count", "last_at"]).where("attempt_key", "=", key));
    return r === undefined ? undefined : { count: Number(r.count), lastAt: Number(r.last_at) };
  }

  set(key: string, attempts: Attempts): void {
    this.#facts.run(
      this.#facts.query
        .insertInto("login_attempts")
        .values({ attempt_key: key, count: attempts.count, last_at: attempts.lastAt })
        .onConflict((oc) => oc.column("attempt_key").doUpdateSet((eb) => ({ count: eb.ref("excluded.count"), last_at: eb.ref("excluded.last_at") }))),
    );
  }

  delete(key: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("login_attempts").where("attempt_key", "=", key));
  }

  deleteIdleSince(cutoff: number): void {
    this.#facts.run(this.#facts.query.deleteFrom("login_attempts").where("last_at", "<=", cutoff));
  }

  atomically<T>(key: string, work: () => T): T {
    return this.#facts.transaction(() => {
      if (this.#facts.engine.kind === "postgres") this.#facts.engine.all("select pg_advisory_xact_lock(hashtext($1))", [`login_attempts:${key}`]);
      return work();
    });
  }
}
