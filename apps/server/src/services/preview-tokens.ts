/**
 * Preview tokens: what lets `/preview/<token>/…` serve workspace files without the cookie.
 *
 * A token is `<payload>.<mac>`, both base64url: the payload `{s, d, h, e}` names the session,
 * the workspace folder the preview may read (the previewed file's folder, so its relative
 * links to styles, scripts and images work), the host the preview must be requested on (the
 * other loopback origin), and the expiry; the mac is HMAC-SHA256 over the payload with a key
 * made when the server starts (tokens die with the process). Verification is constant-time
 * and refuses a bad mac, an expired token, or any payload that does not parse.
 *
 * Which origin: the app on `localhost` previews on `127.0.0.1` and vice versa, with the same
 * port, so the preview has an origin of its own (no cookie, no access to the app's storage
 * or API: the write guard refuses cross-origin writes). Any other host has no twin and
 * previews on itself; the sandbox CSP still gives the page an opaque origin.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Schema } from "effect";

export const PREVIEW_TTL_MS = 15 * 60 * 1000;

const Payload = Schema.Struct({ s: Schema.String, d: Schema.String, h: Schema.String, e: Schema.Number });
const decodePayload = Schema.decodeUnknownOption(Payload);
export interface PreviewGrant {
  sessionId: string;
  /** Workspace-relative folder ("" = the workspace root). */
  dir: string;
  /** `host[:port]` the preview is served on. */
  host: string;
  expiresAt: number;
}

export class PreviewTokens {
  readonly #key: Buffer;
  readonly #now: () => number;

  constructor(now: () => number, key: Buffer = randomBytes(32)) {
    this.#key = key;
    this.#now = now;
  }

  sign(grant: Omit<PreviewGrant, "expiresAt">, ttlMs = PREVIEW_TTL_MS): string {
    const payload = Buffer.from(JSON.stringify({ s: grant.sessionId, d: grant.dir, h: grant.host, e: this.#now() + ttlMs })).toString("base64url");
    return `${payload}.${this.#mac(payload)}`;
  }

  verify(token: string): PreviewGrant | undefined {
    const [payload, mac, extra] = token.split(".");
    if (payload === undefined || mac === undefined || extra !== undefined) return undefined;
    const expected = Buffer.from(this.#mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return undefined;
    }
    const p = decodePayload(parsed);
    if (p._tag === "None" || p.value.e <= this.#now()) return undefined;
    return { sessionId: p.value.s, dir: p.value.d, host: p.value.h, expiresAt: p.value.e };
  }

  #mac(payload: string): string {
    return createHmac("sha256", this.#key).update(payload).digest("base64url");
  }
}

/** The origin previews use for an app reached at `appUrl`: the other loopback name, same port. */
export function previewOrigin(appUrl: URL): URL {
  const out = new URL(appUrl.origin);
  if (appUrl.hostname === "localhost") out.hostname = "127.0.0.1";
  else if (appUrl.hostname === "127.0.0.1") out.hostname = "localhost";
  return out;
}
