/**
 * The Host header allowlist, against DNS rebinding: a page on an attacker's domain that
 * re-points its name at 127.0.0.1 can make the browser talk to this server as a same-origin
 * page of that domain, cookies aside. Its requests still carry the attacker's name in the
 * Host header, so every request (API, web app, preview) must name this server by one of the
 * loopback names or a name the operator configured (`--allowed-host`, PENGUIN_ALLOWED_HOSTS);
 * anything else is a 403 `bad_host` before any other work. Ports are not compared: the
 * server answers on one port, and the browser puts the port it used in the header.
 */
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { ApiError } from "../http/api-error.js";
import { contextOf } from "../http/express-adapter.js";

export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** `name`, `name:port` or `[v6]:port` → the lowercase host name, brackets kept for IPv6. */
export function hostNameOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end < 0 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(":");
  return colon < 0 ? value : value.slice(0, colon);
}

export function hostAllowlist(configured: readonly string[]) {
  const allowed = new Set([...LOOPBACK_HOSTS, ...configured.map((h) => hostNameOf(h))]);
  return function checkHost(_req: ExpressRequest, res: ExpressResponse, next: NextFunction): void {
    const header = contextOf(res).header("host");
    if (header === undefined || !allowed.has(hostNameOf(header))) {
      throw new ApiError(403, "bad_host", `this server does not answer to the host ${JSON.stringify(header ?? "")}; start it with --allowed-host NAME to allow a name`);
    }
    next();
  };
}
