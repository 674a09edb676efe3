/**
 * Logging in and out, and checking a signed-in user's current password.
 *
 * Failed logins slow down the one client address that makes them, for the one account they
 * aim at (auth/rate-limit.ts): 5 attempts of an (address, user id) pair pass, then each
 * further one waits after the one before it, 1 s at first, doubling up to 15 min; over it the
 * answer is 429 with Retry-After and the password is not checked at all. A success resets
 * that pair (and sweeps expired browser sessions from the database).
 *
 * Nothing is counted per account alone: a counter per user id let anyone lock any account
 * for 15 minutes by failing its password, so the owner, from their own address,
 * always gets in with the right password. Counting per address *and* user also means that
 * failures from one address (many people behind one NAT, a local proxy) slow down only the
 * accounts they were aimed at, never everyone behind that address.
 *
 * An attempt is admitted and counted in one synchronous step before the slow scrypt check,
 * so concurrent requests cannot all slip in while the first ones are still being verified.
 * The old-password check of a password change goes through the same delays under its own key
 * (per user: only a signed-in session reaches it), so a stolen cookie cannot be used to guess
 * the password quickly. An unknown user id costs the same scrypt work as a wrong password, so
 * timing does not reveal which ids exist.
 */
import type { Stores } from "../db/stores.js";
import { ApiError } from "../http/api-error.js";
import { BackoffLimiter } from "./rate-limit.js";
import { SESSION_TTL_MS } from "./cookie.js";
import { hashPassword, verifyPassword } from "./password.js";
import { hashToken, newSessionToken } from "./tokens.js";

export interface LoginLimits {
  /** Attempts of one (address, user) pair that pass at once. */
  freeAttempts: number;
  /** The wait after the first attempt past the free ones; it doubles with each further one. */
  firstDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
  /** A pair untouched this long starts afresh. */
  forgetAfterMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  freeAttempts: 5,
  firstDelayMs: 1000,
  maxDelayMs: 15 * 60 * 1000,
  forgetAfterMs: 24 * 60 * 60 * 1000,
};

export interface LoginResult {
  token: string;
  userId: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
}

export class LoginService {
  readonly #stores: Stores;
  readonly #now: () => number;
  readonly #attempts: BackoffLimiter;
  #dummyHash: Promise<string> | undefined;

  constructor(stores: Stores, now: () => number, limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#stores = stores;
    this.#now = now;
    // Counted in the facts database: shared by every node on one PostgreSQL.
    this.#attempts = new BackoffLimiter({ ...limits, now }, stores.loginAttempts);
  }

  async login(userId: string, password: string, clientIp: string): Promise<LoginResult> {
    const pairKey = `ip:${clientIp}|user:${userId}`;
    this.#admit(pairKey, `too many failed logins for ${userId} from this address`);
    const user = this.#stores.users.get(userId);
    const ok = user !== undefined ? await verifyPassword(password, user.passwordHash) : await this.#burn(password);
    if (user === undefined || !ok) throw new ApiError(401, "invalid_credentials", "wrong user id or password");
    this.#attempts.reset(pairKey);
    const token = newSessionToken();
    const now = this.#now();
    this.#stores.authSessions.purgeExpired(now);
    this.#stores.authSessions.insert(hashToken(token), user.userId, now, now + SESSION_TTL_MS, "password");
    return { token, userId: user.userId, isAdmin: user.isAdmin, passwordIsInitial: user.passwordIsInitial };
  }

  /** The old-password check of a password change: 403 when wrong, 429 when tried too often. */
  async checkCurrentPassword(userId: string, password: string): Promise<void> {
    const key = `password:${userId}`;
    this.#admit(key, "too many wrong current passwords");
    const user = this.#stores.users.get(userId);
    if (user === undefined || !(await verifyPassword(password, user.passwordHash))) {
      throw new ApiError(403, "invalid_credentials", "the old password is wrong", { field: "oldPassword" });
    }
    this.#attempts.reset(key);
  }

  /** Admits and counts one attempt of `key`, or refuses it (429 with the wait). */
  #admit(key: string, what: string): void {
    const decision = this.#attempts.admit(key);
    if (!decision.allowed) {
      const wait = decision.retryAfterSec;
      throw new ApiError(429, "rate_limited", `${what}; try again in ${wait} s`, { headers: { "retry-after": String(wait) } });
    }
  }

  logout(tokenHash: string): void {
    this.#stores.authSessions.revoke(tokenHash);
  }

  /** Same work as a real check, always false. */
  async #burn(password: string): Promise<boolean> {
    this.#dummyHash ??= hashPassword("penguin-unused-dummy-password");
    await verifyPassword(password, await this.#dummyHash);
    return false;
  }
}
