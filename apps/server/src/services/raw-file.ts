/**
 * Raw file responses for user content (workspace files, scratchpad uploads): always
 * `X-Content-Type-Options: nosniff`; previews add a sandbox CSP (no scripts, opaque origin,
 * so a previewed HTML page cannot act as the signed-in user), downloads add an attachment
 * disposition.
 */
import { basename } from "node:path";
import { mimeOf } from "./mime.js";

export const PREVIEW_CSP = "sandbox; default-src 'none'; img-src 'self' data: blob:; media-src 'self' data: blob:; style-src 'unsafe-inline'; font-src data:";

export function rawFileResponse(path: string, bytes: Buffer, mode: "preview" | "download"): Response {
  const headers: Record<string, string> = {
    "content-type": mode === "download" ? "application/octet-stream" : mimeOf(path),
    "content-length": String(bytes.length),
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
  };
  if (mode === "preview") headers["content-security-policy"] = PREVIEW_CSP;
  else headers["content-disposition"] = `attachment; filename*=UTF-8''${encodeURIComponent(basename(path))}`;
  return new Response(bytes, { status: 200, headers });
}
