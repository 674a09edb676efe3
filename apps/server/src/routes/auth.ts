/**
 * Auth resource: `POST /api/auth/login {userId, password}` → `{user}` plus the session
 * cookie; `POST /api/auth/logout` → 204, revoking the cookie's session server-side.
 * Rate limits and cookie flags live in auth/; this file only wires them to HTTP.
 */
import { z } from "zod";
import { clearedSessionCookie, isHttps, SESSION_TTL_MS, sessionCookie } from "../auth/cookie.js";
import type { AppEnv } from "../http/app-env.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import type { Context } from "hono";

const LoginBody = z.object({ userId: z.string().min(1).max(64), password: z.string().min(1).max(1024) });

export const UserView = z.object({ userId: z.string(), isAdmin: z.boolean(), passwordIsInitial: z.boolean() });

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
      responses: { 200: { description: "Signed in", schema: z.object({ user: UserView }) }, 401: { description: "Wrong user id or password" }, 429: { description: "Too many failed attempts (Retry-After)" } },
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
      summary: "Sign out: revoke this browser session",
      tag: "auth",
      access: "user",
      responses: { 204: { description: "Signed out" } },
    },
    ({ c, user }) => {
      ctx.login.logout(user.tokenHash);
      c.set("user", undefined);
      return noContent({ "set-cookie": clearedSessionCookie(isHttps(c)) });
    },
  );
}

/** The peer address of the socket (never a forwarded header: this server is not behind a trusted proxy). */
export function clientIp(c: Context<AppEnv>): string {
  return c.env?.incoming?.socket.remoteAddress ?? "local";
}
