/**
 * RequestContext: what every route handler and middleware knows about one HTTP request,
 * independent of the HTTP library: the method and full URL (with the Host the client used,
 * which the write guard and preview origins depend on), headers, the peer address, an abort
 * signal that fires when the client goes away, and the signed-in user the auth middleware
 * resolved. The express adapter (http/express-adapter.ts) builds one per request and keeps
 * it on `res.locals`, so routes import this type, not express.
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

export class RequestContext {
  readonly method: string;
  readonly url: URL;
  readonly incoming: IncomingMessage;
  /** Aborts when the client disconnects before the answer is complete. */
  readonly signal: AbortSignal;
  user: AuthUser | undefined = undefined;
  /** A renewed session cookie, sent with the answer only if the request still has a user then. */
  renewedCookie: string | undefined = undefined;

  constructor(incoming: IncomingMessage, url: URL, signal: AbortSignal) {
    this.incoming = incoming;
    this.method = (incoming.method ?? "GET").toUpperCase();
    this.url = url;
    this.signal = signal;
  }

  get path(): string {
    return this.url.pathname;
  }

  /** A request header's value (the first, when repeated), or undefined. */
  header(name: string): string | undefined {
    const value = this.incoming.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  /** The peer address of the socket (never a forwarded header: this server is not behind a trusted proxy). */
  get remoteAddress(): string {
    return this.incoming.socket.remoteAddress ?? "local";
  }
}
