/**
 * Resolves the `penguin_session` cookie to a user for every `/api/*` request and renews it
 * (sliding expiry): once a session is more than a day into its 7-day life, each use moves
 * the expiry to now + 7 days and re-sends the cookie (the adapter adds it to the answer if
 * the request still has a user then, so a logout does not renew). It never rejects: whether
 * a route needs a user is the route table's decision (http/route-table.ts), not this one's.
 */
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import type { Stores } from "../db/stores.js";
import { contextOf } from "../http/express-adapter.js";
import { isHttps, readSessionToken, SESSION_TTL_MS, sessionCookie } from "./cookie.js";
import { hashToken } from "./tokens.js";

const RENEW_AFTER_MS = 24 * 60 * 60 * 1000;

export function authenticate(deps: { stores: Stores; now: () => number }) {
  return function authenticateSession(_req: ExpressRequest, res: ExpressResponse, next: NextFunction): void {
    const c = contextOf(res);
    const token = readSessionToken(c);
    c.user = undefined;
    if (token !== undefined) {
      const now = deps.now();
      const hit = deps.stores.authSessions.find(hashToken(token), now);
      if (hit !== undefined) {
        c.user = { userId: hit.userId, isAdmin: hit.isAdmin, passwordIsInitial: hit.passwordIsInitial, tokenHash: hit.tokenHash };
        if (hit.expiresAt - now < SESSION_TTL_MS - RENEW_AFTER_MS) {
          deps.stores.authSessions.extend(hit.tokenHash, now + SESSION_TTL_MS);
          c.renewedCookie = sessionCookie(token, SESSION_TTL_MS, isHttps(c));
        }
      }
    }
    next();
  };
}
