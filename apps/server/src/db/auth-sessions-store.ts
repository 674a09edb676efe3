/**
 * Browser sessions: the sha256 of each cookie token (the token itself is never stored), its
 * owner and its sliding expiry. Looking a token up joins the user, so one query authenticates.
 */
import type { Database } from "better-sqlite3";

export interface AuthSessionHit {
  tokenHash: string;
  userId: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  expiresAt: number;
}

interface RawHit {
  token_hash: string;
  user_id: string;
  is_admin: number;
  password_is_initial: number;
  expires_at: number;
}

export class AuthSessionStore {
  readonly #insert;
  readonly #find;
  readonly #extend;
  readonly #delete;
  readonly #deleteForUser;
  readonly #deleteForUserExcept;
  readonly #purge;

  constructor(db: Database) {
    this.#insert = db.prepare<[string, string, number, number, string]>(
      "INSERT INTO auth_sessions (token_hash, user_id, created_at, expires_at, via) VALUES (?, ?, ?, ?, ?)",
    );
    this.#find = db.prepare<[string, number], RawHit>(
      `SELECT s.token_hash, s.user_id, s.expires_at, u.is_admin, u.password_is_initial
         FROM auth_sessions s JOIN users u ON u.user_id = s.user_id
        WHERE s.token_hash = ? AND s.expires_at > ?`,
    );
    this.#extend = db.prepare<[number, string]>("UPDATE auth_sessions SET expires_at = ? WHERE token_hash = ?");
    this.#delete = db.prepare<[string]>("DELETE FROM auth_sessions WHERE token_hash = ?");
    this.#deleteForUser = db.prepare<[string]>("DELETE FROM auth_sessions WHERE user_id = ?");
    this.#deleteForUserExcept = db.prepare<[string, string]>("DELETE FROM auth_sessions WHERE user_id = ? AND token_hash <> ?");
    this.#purge = db.prepare<[number]>("DELETE FROM auth_sessions WHERE expires_at <= ?");
  }

  insert(tokenHash: string, userId: string, now: number, expiresAt: number, via: "password"): void {
    this.#insert.run(tokenHash, userId, now, expiresAt, via);
  }

  find(tokenHash: string, now: number): AuthSessionHit | undefined {
    const r = this.#find.get(tokenHash, now);
    if (r === undefined) return undefined;
    return { tokenHash: r.token_hash, userId: r.user_id, isAdmin: r.is_admin === 1, passwordIsInitial: r.password_is_initial === 1, expiresAt: r.expires_at };
  }

  extend(tokenHash: string, expiresAt: number): void {
    this.#extend.run(expiresAt, tokenHash);
  }

  revoke(tokenHash: string): void {
    this.#delete.run(tokenHash);
  }

  /** Every browser session of a user, or all but one (`keep`) after a password change. */
  revokeForUser(userId: string, keep?: string): void {
    if (keep === undefined) this.#deleteForUser.run(userId);
    else this.#deleteForUserExcept.run(userId, keep);
  }

  purgeExpired(now: number): void {
    this.#purge.run(now);
  }
}
