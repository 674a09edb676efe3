/**
 * The `penguin_session` cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on
 * cross-site writes), Path=/, and a Max-Age equal to the sliding expiry, renewed as the
 * session is used. `Secure` is added only when the server is reached over https: the
 * default deployment is plain http on localhost, where a Secure cookie would never be sent.
 */
import type { RequestContext } from "../http/request-context.js";

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

/** The session token from the Cookie header (the first `penguin_session` pair), or undefined. */
export function readSessionToken(c: RequestContext): string | undefined {
  const header = c.header("cookie");
  if (header === undefined) return undefined;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at < 0 || pair.slice(0, at).trim() !== SESSION_COOKIE) continue;
    const raw = pair.slice(at + 1).trim().replace(/^"(.*)"$/, "$1");
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    return value === "" ? undefined : value;
  }
  return undefined;
}

export function isHttps(c: RequestContext): boolean {
  return c.url.protocol === "https:";
}
