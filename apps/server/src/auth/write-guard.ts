/**
 * Cross-site write protection for `/api/*`, applied before authentication and routing:
 *
 * - An `Origin` header, when the browser sends one, must name this server's own host (else
 *   403 `bad_origin`). A sandboxed preview has the opaque origin `null` and so cannot write.
 * - Every write (POST, PUT, PATCH, DELETE) must say `content-type: application/json` (else
 *   415). A cross-site page can only send that type after a CORS preflight, which this server
 *   never grants; with the SameSite=Lax cookie that closes CSRF without tokens.
 */
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { ApiError } from "../http/api-error.js";
import { contextOf } from "../http/express-adapter.js";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function writeGuard() {
  return function guardWrites(_req: ExpressRequest, res: ExpressResponse, next: NextFunction): void {
    const c = contextOf(res);
    if (!WRITES.has(c.method)) return next();
    const origin = c.header("origin");
    if (origin !== undefined && !sameHost(origin, c.header("host") ?? c.url.host)) {
      throw new ApiError(403, "bad_origin", "the request's Origin does not match this server");
    }
    const type = (c.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      throw new ApiError(415, "unsupported_media_type", "writes must be sent as content-type: application/json");
    }
    next();
  };
}

function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
