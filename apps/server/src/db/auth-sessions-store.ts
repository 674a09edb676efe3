/**
 * Browser sessions: the sha256 of each cookie token (the token itself is never stored), its
 * owner and its sliding expiry. Looking a token up joins the user, so one query authenticates.
 */
import type { FactsDb } from "./facts-db.js";

export interface AuthSessionHit {
  tokenHash: string;
  userId: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  expiresAt: number;
}

export class AuthSessionStore {
  readonly #facts: FactsDb;
  readonly #find;
  readonly #extend;

  constructor(facts: FactsDb) {
    this.#facts = facts;
    // Both run on every signed-in request: compiled once.
    this.#find = facts.prepare(2, (tokenHash: string, now: number) =>
      facts.query
        .selectFrom("auth_sessions as s")
        .innerJoin("users as u", "u.user_id", "s.user_id")
        .select(["s.token_hash", "s.user_id", "s.expires_at", "u.is_admin", "u.password_is_initial"])
        .where("s.token_hash", "=", tokenHash)
        .where("s.expires_at", ">", now),
    );
    this.#extend = facts.prepare(2, (tokenHash: string, expiresAt: number) => facts.query.updateTable("auth_sessions").set({ expires_at: expiresAt }).where("token_hash", "=", tokenHash));
  }

  insert(tokenHash: string, userId: string, now: number, expiresAt: number, via: "password"): void {
    this.#facts.run(this.#facts.query.insertInto("auth_sessions").values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt, via }));
  }

  find(tokenHash: string, now: number): AuthSessionHit | undefined {
    const r = this.#find.first(tokenHash, now);
    if (r === undefined) return undefined;
    return { tokenHash: r.token_hash, userId: r.user_id, isAdmin: r.is_admin === 1, passwordIsInitial: r.password_is_initial === 1, expiresAt: r.expires_at };
  }

  extend(tokenHash: string, expiresAt: number): void {
    this.#extend.run(tokenHash, expiresAt);
  }

  revoke(tokenHash: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("auth_sessions").where("token_hash", "=", tokenHash));
  }

  /** Every browser session of a user, or all but one (`keep`) after a password change. */
  revokeForUser(userId: string, keep?: string): void {
    const forUser = this.#facts.query.deleteFrom("auth_sessions").where("user_id", "=", userId);
    this.#facts.run(keep === undefined ? forUser : forUser.where("token_hash", "<>", keep));
  }

  purgeExpired(now: number): void {
    this.#facts.run(this.#facts.query.deleteFrom("auth_sessions").where("expires_at", "<=", now));
  }
}
