/**
 * Users: id, scrypt hash, admin flag, and whether the password is still the generated
 * initial one (the startup notice repeats it until it is changed). Prepared once per handle.
 */
import type { Database } from "better-sqlite3";

export interface UserRow {
  userId: string;
  passwordHash: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  createdAt: number;
}

interface RawUser {
  user_id: string;
  password_hash: string;
  is_admin: number;
  password_is_initial: number;
  created_at: number;
}

const toRow = (r: RawUser): UserRow => ({
  userId: r.user_id,
  passwordHash: r.password_hash,
  isAdmin: r.is_admin === 1,
  passwordIsInitial: r.password_is_initial === 1,
  createdAt: r.created_at,
});

export class UserStore {
  readonly #get;
  readonly #list;
  readonly #insert;
  readonly #setPassword;
  readonly #delete;
  readonly #firstAdmin;

  constructor(db: Database) {
    this.#get = db.prepare<[string], RawUser>("SELECT * FROM users WHERE user_id = ?");
    this.#list = db.prepare<[], RawUser>("SELECT * FROM users ORDER BY created_at, user_id");
    this.#insert = db.prepare<[string, string, number, number, number]>(
      "INSERT INTO users (user_id, password_hash, is_admin, password_is_initial, created_at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#setPassword = db.prepare<[string, number, string]>("UPDATE users SET password_hash = ?, password_is_initial = ? WHERE user_id = ?");
    this.#delete = db.prepare<[string]>("DELETE FROM users WHERE user_id = ?");
    this.#firstAdmin = db.prepare<[], RawUser>("SELECT * FROM users WHERE is_admin = 1 ORDER BY created_at, user_id LIMIT 1");
  }

  get(userId: string): UserRow | undefined {
    const r = this.#get.get(userId);
    return r === undefined ? undefined : toRow(r);
  }

  list(): UserRow[] {
    return this.#list.all().map(toRow);
  }

  insert(user: UserRow): void {
    this.#insert.run(user.userId, user.passwordHash, user.isAdmin ? 1 : 0, user.passwordIsInitial ? 1 : 0, user.createdAt);
  }

  setPassword(userId: string, passwordHash: string, initial: boolean): void {
    this.#setPassword.run(passwordHash, initial ? 1 : 0, userId);
  }

  delete(userId: string): void {
    this.#delete.run(userId);
  }

  firstAdmin(): UserRow | undefined {
    const r = this.#firstAdmin.get();
    return r === undefined ? undefined : toRow(r);
  }
}
