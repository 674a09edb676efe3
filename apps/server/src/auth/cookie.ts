/**
 * The `penguin_session` cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on
 * cross-site writes), Path=/, and a Max-Age equal to the sliding expiry, renewed as the
 * session is used. `Secure` is added only when the server is reached over https: the
 * default deployment is plain http on localhost, where a Secure cookie would never be sent.
 */
import { getCookie } from "hono/cookie";
import type { Context } from "hono";

export const SESSION_COOKIE = "penguin_session";
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function sessionCookie(token: string, maxAgeMs: number, secure: boolean): string {
  const flags = [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`];
  if (secure) flags.push("Secure");
  return flags.join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie("", 0, secure);
}

export function readSessionToken(c: Context): string | undefined {
  const value = getCookie(c, SESSION_COOKIE);
  return value === undefined || value === "" ? undefined : value;
}

export function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:";
}
