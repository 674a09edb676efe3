/**
 * Resolves the `penguin_session` cookie to a user for every `/api/*` request and renews it
 * (sliding expiry): once a session is more than a day into its 7-day life, each use moves
 * the expiry to now + 7 days and re-sends the cookie. It never rejects: whether a route
 * needs a user is the route table's decision (http/route-table.ts), not this middleware's.
 */
import type { MiddlewareHandler } from "hono";
import type { Stores } from "../db/stores.js";
import type { AppEnv } from "../http/app-env.js";
import { isHttps, readSessionToken, SESSION_TTL_MS, sessionCookie } from "./cookie.js";
import { hashToken } from "./tokens.js";

const RENEW_AFTER_MS = 24 * 60 * 60 * 1000;

export function authenticate(deps: { stores: Stores; now: () => number }): MiddlewareHandler<AppEnv> {
  return async function authenticateSession(c, next) {
    const token = readSessionToken(c);
    let renewed: string | undefined;
    if (token === undefined) {
      c.set("user", undefined);
    } else {
      const now = deps.now();
      const hit = deps.stores.authSessions.find(hashToken(token), now);
      if (hit === undefined) {
        c.set("user", undefined);
      } else {
        c.set("user", { userId: hit.userId, isAdmin: hit.isAdmin, passwordIsInitial: hit.passwordIsInitial, tokenHash: hit.tokenHash });
        if (hit.expiresAt - now < SESSION_TTL_MS - RENEW_AFTER_MS) {
          deps.stores.authSessions.extend(hit.tokenHash, now + SESSION_TTL_MS);
          renewed = sessionCookie(token, SESSION_TTL_MS, isHttps(c));
        }
      }
    }
    await next();
    if (renewed !== undefined && c.get("user") !== undefined) c.res.headers.append("set-cookie", renewed);
  };
}
