/**
 * Auth resource: `POST /api/auth/login {userId, password}` → `{user}` plus the session
 * cookie; `POST /api/auth/logout` → 204, revoking the cookie's session server-side.
 * Rate limits and cookie flags live in auth/; this file only wires them to HTTP.
 */
import { Schema } from "effect";
import { clearedSessionCookie, isHttps, SESSION_TTL_MS, sessionCookie } from "../auth/cookie.js";
import type { RequestContext } from "../http/request-context.js";
import { json, noContent } from "../http/respond.js";
import { Text } from "../http/schemas.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { LoginAnswer } from "../contract/index.js";

const LoginBody = Schema.Struct({ userId: Text(1, 64), password: Text(1, 1024) });


export function authRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "post",
      path: "/api/auth/login",
      operationId: "auth.login",
      summary: "Sign in with a user id and password; sets the penguin_session cookie",
      tag: "auth",
      access: "public",
      body: LoginBody,
      responses: { 200: { description: "Signed in", schema: LoginAnswer }, 401: { description: "Wrong user id or password" }, 429: { description: "Too many failed attempts (Retry-After)" } },
    },
    async ({ c, body }) => {
      const result = await ctx.login.login(body.userId, body.password, clientIp(c));
      const user = { userId: result.userId, isAdmin: result.isAdmin, passwordIsInitial: result.passwordIsInitial };
      return json({ user }, 200, { "set-cookie": sessionCookie(result.token, SESSION_TTL_MS, isHttps(c)) });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/auth/logout",
      operationId: "auth.logout",
      beforePasswordChange: true,
      summary: "Sign out: revoke this browser session",
      tag: "auth",
      access: "user",
      responses: { 204: { description: "Signed out" } },
    },
    ({ c, user }) => {
      ctx.login.logout(user.tokenHash);
      c.user = undefined;
      return noContent({ "set-cookie": clearedSessionCookie(isHttps(c)) });
    },
  );
}

/** The peer address of the socket (never a forwarded header: this server is not behind a trusted proxy). */
export function clientIp(c: RequestContext): string {
  return c.remoteAddress;
}
