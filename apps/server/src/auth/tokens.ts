/**
 * Browser-session tokens: 32 random bytes (base64url) in the cookie, only their sha256 in
 * the database, so a leaked database cannot be replayed as cookies.
 */
import { createHash, randomBytes } from "node:crypto";

export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
