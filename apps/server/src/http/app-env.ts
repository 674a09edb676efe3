/**
 * The Hono environment every route and middleware shares: what the Node adapter binds (the
 * raw request, for the client address) and what the auth middleware puts on the context
 * (the signed-in user, or undefined). Kept in its own file so routes import a type, not the
 * app that assembles them.
 */
import type { IncomingMessage } from "node:http";

/** The signed-in user, as the auth middleware resolved it from the session cookie. */
export interface AuthUser {
  userId: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  /** sha256 of the cookie token: identifies this browser session (logout, password change). */
  tokenHash: string;
}

export interface AppEnv {
  /** Absent under `app.request()` (no socket); set by @hono/node-server otherwise. */
  Bindings: { incoming?: IncomingMessage } | undefined;
  Variables: { user: AuthUser | undefined };
}
