/**
 * `/preview/:token/*`: workspace previews on a separate origin behind an HMAC token (SPEC §9:
 * the app on `localhost`, previews on `127.0.0.1`). Not implemented (501); previews are
 * served same-origin under a sandbox CSP instead (routes/session-files.ts).
 */
import { notImplemented } from "../http/api-error.js";
import type { RouteTable } from "../http/route-table.js";

export function previewRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/preview/:token/*", operationId: "preview.serve", summary: "Token-signed preview origin (not implemented)", tag: "files", access: "public", responses: { 501: { description: "Not implemented" } } },
    () => {
      throw notImplemented("the token-signed preview origin");
    },
  );
}
