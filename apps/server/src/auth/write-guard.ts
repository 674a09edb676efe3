/**
 * Cross-site write protection for `/api/*`, applied before authentication and routing:
 *
 * - An `Origin` header, when the browser sends one, must name this server's own host (else
 *   403 `bad_origin`). A sandboxed preview has the opaque origin `null` and so cannot write.
 * - Every write (POST, PUT, PATCH, DELETE) must say `content-type: application/json` (else
 *   415). A cross-site page can only send that type after a CORS preflight, which this server
 *   never grants; with the SameSite=Lax cookie that closes CSRF without tokens (STACK.md §3).
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../http/api-error.js";
import type { AppEnv } from "../http/app-env.js";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function writeGuard(): MiddlewareHandler<AppEnv> {
  return async function guardWrites(c, next) {
    if (!WRITES.has(c.req.method)) return next();
    const origin = c.req.header("origin");
    if (origin !== undefined && !sameHost(origin, c.req.header("host") ?? new URL(c.req.url).host)) {
      throw new ApiError(403, "bad_origin", "the request's Origin does not match this server");
    }
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      throw new ApiError(415, "unsupported_media_type", "writes must be sent as content-type: application/json");
    }
    return next();
  };
}

function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
