/**
 * Logging in and out, and checking a signed-in user's current password.
 *
 * Attempts are counted per user id (across all addresses) and per client address *and*
 * user id (fixed windows, injected clock). An attempt is admitted and counted in one
 * synchronous step before the slow scrypt check, so concurrent requests cannot all slip
 * under the limit while the first ones are still being verified; over either limit the
 * answer is 429 with Retry-After and the password is not checked at all. A success clears
 * both counters (and sweeps expired browser sessions from the database).
 *
 * Counting per address *and* user, not per address alone, means that failures from one
 * address (many people behind one NAT, or the loopback address of a local proxy) lock out
 * only the accounts they were aimed at, never everyone behind that address; guessing at one
 * account from many addresses is still capped by the per-user window.
 *
 * The old-password check of a password change goes through the same per-user counter
 * under its own key, so a stolen cookie cannot be used to guess the password quickly.
 * An unknown user id costs the same scrypt work as a wrong password, so timing does not
 * reveal which ids exist.
 */
import type { Stores } from "../db/stores.js";
import { ApiError } from "../http/api-error.js";
import { RateLimiter } from "./rate-limit.js";
import { SESSION_TTL_MS } from "./cookie.js";
import { hashPassword, verifyPassword } from "./password.js";
import { hashToken, newSessionToken } from "./tokens.js";

export interface LoginLimits {
  /** Per client address and user id pair. */
  perIp: { limit: number; windowMs: number };
  /** Per user id, whatever the address (also the old-password check). */
  perUser: { limit: number; windowMs: number };
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perIp: { limit: 20, windowMs: 15 * 60 * 1000 },
  perUser: { limit: 10, windowMs: 15 * 60 * 1000 },
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
  readonly #byIp: RateLimiter;
  readonly #byUser: RateLimiter;
  #dummyHash: Promise<string> | undefined;

  constructor(stores: Stores, now: () => number, limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#stores = stores;
    this.#now = now;
    this.#byIp = new RateLimiter({ ...limits.perIp, now });
    this.#byUser = new RateLimiter({ ...limits.perUser, now });
  }

  async login(userId: string, password: string, clientIp: string): Promise<LoginResult> {
    const pairKey = `ip:${clientIp}|user:${userId}`;
    const userKey = `user:${userId}`;
    this.#admit([this.#byIp, pairKey], [this.#byUser, userKey], "too many failed logins");
    const user = this.#stores.users.get(userId);
    const ok = user !== undefined ? await verifyPassword(password, user.passwordHash) : await this.#burn(password);
    if (user === undefined || !ok) throw new ApiError(401, "invalid_credentials", "wrong user id or password");
    this.#byUser.reset(userKey);
    this.#byIp.reset(pairKey);
    const token = newSessionToken();
    const now = this.#now();
    this.#stores.authSessions.purgeExpired(now);
    this.#stores.authSessions.insert(hashToken(token), user.userId, now, now + SESSION_TTL_MS, "password");
    return { token, userId: user.userId, isAdmin: user.isAdmin, passwordIsInitial: user.passwordIsInitial };
  }

  /** The old-password check of a password change: 403 when wrong, 429 when tried too often. */
  async checkCurrentPassword(userId: string, password: string): Promise<void> {
    const key = `password:${userId}`;
    this.#admit([this.#byUser, key], undefined, "too many wrong current passwords");
    const user = this.#stores.users.get(userId);
    if (user === undefined || !(await verifyPassword(password, user.passwordHash))) {
      throw new ApiError(403, "invalid_credentials", "the old password is wrong", { field: "oldPassword" });
    }
    this.#byUser.reset(key);
  }

  /** Admits one attempt against every given counter, or none (429 with the longest wait). */
  #admit(first: [RateLimiter, string], second: [RateLimiter, string] | undefined, what: string): void {
    const counters = second === undefined ? [first] : [first, second];
    const waits = counters.map(([limiter, key]) => limiter.check(key)).flatMap((d) => (d.allowed ? [] : [d.retryAfterSec]));
    if (waits.length > 0) {
      const retryAfter = Math.max(...waits);
      throw new ApiError(429, "rate_limited", `${what}; try again in ${retryAfter} s`, { headers: { "retry-after": String(retryAfter) } });
    }
    for (const [limiter, key] of counters) limiter.hit(key);
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
