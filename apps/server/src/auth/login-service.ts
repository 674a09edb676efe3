/**
 * Logging in and out.
 *
 * Failed attempts are counted per client address and per user id (fixed windows, injected
 * clock); once either is over its limit the answer is 429 with Retry-After, before the
 * password is even checked. A success clears that user's counter (and sweeps expired
 * browser sessions from the database). An unknown user id costs
 * the same scrypt work as a wrong password, so timing does not reveal which ids exist.
 */
import type { Stores } from "../db/stores.js";
import { ApiError } from "../http/api-error.js";
import { RateLimiter } from "./rate-limit.js";
import { SESSION_TTL_MS } from "./cookie.js";
import { hashPassword, verifyPassword } from "./password.js";
import { hashToken, newSessionToken } from "./tokens.js";

export interface LoginLimits {
  perIp: { limit: number; windowMs: number };
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
    const ipKey = `ip:${clientIp}`;
    const userKey = `user:${userId}`;
    const waits = [this.#byIp.check(ipKey), this.#byUser.check(userKey)].flatMap((d) => (d.allowed ? [] : [d.retryAfterSec]));
    if (waits.length > 0) {
      const retryAfter = Math.max(...waits);
      throw new ApiError(429, "rate_limited", `too many failed logins; try again in ${retryAfter} s`, { headers: { "retry-after": String(retryAfter) } });
    }
    const user = this.#stores.users.get(userId);
    const ok = user !== undefined ? await verifyPassword(password, user.passwordHash) : await this.#burn(password);
    if (user === undefined || !ok) {
      this.#byIp.hit(ipKey);
      this.#byUser.hit(userKey);
      throw new ApiError(401, "invalid_credentials", "wrong user id or password");
    }
    this.#byUser.reset(userKey);
    const token = newSessionToken();
    const now = this.#now();
    this.#stores.authSessions.purgeExpired(now);
    this.#stores.authSessions.insert(hashToken(token), user.userId, now, now + SESSION_TTL_MS, "password");
    return { token, userId: user.userId, isAdmin: user.isAdmin, passwordIsInitial: user.passwordIsInitial };
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
