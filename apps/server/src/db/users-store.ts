/**
 * Users: id, scrypt hash, admin flag, and whether the password is still the generated
 * initial one (the startup notice repeats it until it is changed). Queries are Kysely's, run
 * synchronously through FactsDb.
 */
import type { Selectable } from "kysely";
import type { FactsDb } from "./facts-db.js";
import type { UsersTable } from "./facts-schema.js";

export interface UserRow {
  userId: string;
  passwordHash: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  createdAt: number;
}

const toRow = (r: Selectable<UsersTable>): UserRow => ({
  userId: r.user_id,
  passwordHash: r.password_hash,
  isAdmin: r.is_admin === 1,
  passwordIsInitial: r.password_is_initial === 1,
  createdAt: r.created_at,
});

export class UserStore {
  readonly #facts: FactsDb;
  readonly #get;
  #accessChanges = 0;

  constructor(facts: FactsDb) {
    this.#facts = facts;
    this.#get = facts.prepare(1, (userId: string) => facts.query.selectFrom("users").selectAll().where("user_id", "=", userId));
  }

  /** How many users this store added or deleted (admins see every project): see auth/audience-memo.ts. */
  get accessChanges(): number {
    return this.#accessChanges;
  }

  get(userId: string): UserRow | undefined {
    const r = this.#get.first(userId);
    return r === undefined ? undefined : toRow(r);
  }

  list(): UserRow[] {
    return this.#facts.all(this.#facts.query.selectFrom("users").selectAll().orderBy("created_at").orderBy("user_id")).map(toRow);
  }

  insert(user: UserRow): void {
    this.#accessChanges++;
    this.#facts.run(
      this.#facts.query.insertInto("users").values({
        user_id: user.userId,
        password_hash: user.passwordHash,
        is_admin: user.isAdmin ? 1 : 0,
        password_is_initial: user.passwordIsInitial ? 1 : 0,
        created_at: user.createdAt,
      }),
    );
  }

  setPassword(userId: string, passwordHash: string, initial: boolean): void {
    this.#facts.run(this.#facts.query.updateTable("users").set({ password_hash: passwordHash, password_is_initial: initial ? 1 : 0 }).where("user_id", "=", userId));
  }

  delete(userId: string): void {
    this.#accessChanges++;
    this.#facts.run(this.#facts.query.deleteFrom("users").where("user_id", "=", userId));
  }

  firstAdmin(): UserRow | undefined {
    const r = this.#facts.first(this.#facts.query.selectFrom("users").selectAll().where("is_admin", "=", 1).orderBy("created_at").orderBy("user_id").limit(1));
    return r === undefined ? undefined : toRow(r);
  }
}
