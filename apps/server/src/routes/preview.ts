/**
 * `GET /preview/:token/*`: workspace files on the separate preview origin (SPEC §9). The
 * token (services/preview-tokens.ts, made by `S/files/preview-redirect`) is the only
 * credential: no cookie reaches this origin. It must be valid, unexpired and used on the
 * host it was made for; the path after it is confined to the token's folder of the
 * session's workspace exactly like the file routes (no `..`, no symlink out). A folder
 * serves its `index.html`.
 *
 * Answers carry `nosniff` and a sandbox CSP that lets the page run its own scripts inside an
 * opaque origin (so an HTML app can be tried out) while it still cannot reach the app or its
 * cookie; only the app's origin may frame it. Every refusal is the same 404.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { agentPaths } from "@penguin/core";
import { notFound } from "../http/api-error.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { checkRelative, resolveInside } from "../services/confined-path.js";
import { readFileBytes } from "../services/files.js";
import { mimeOf } from "../services/mime.js";
import { previewOrigin } from "../services/preview-tokens.js";
import { refuseSecret } from "../services/workspace-roots.js";

const MAX_PREVIEW = 200 * 1024 * 1024;

/** Runs a lookup; any refusal (bad path, missing file, too large) becomes the one 404. */
function hidingWhy<T>(lookup: () => T): T {
  try {
    return lookup();
  } catch {
    throw notFound("preview");
  }
}

export function previewCsp(appOrigin: string): string {
  return `sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; style-src 'self' 'unsafe-inline' data:; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors ${appOrigin}`;
}

export function previewRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    { method: "get", path: "/preview/:token/*", operationId: "preview.serve", summary: "A workspace file on the preview origin (HMAC token, sandbox CSP)", tag: "files", access: "public", responses: { 200: { description: "The file, raw", contentType: "application/octet-stream" } } },
    ({ c, params }) => {
      const url = c.url;
      const token = params.token ?? "";
      const grant = ctx.previews.verify(token);
      if (grant === undefined || grant.host !== url.host) throw notFound("preview");
      const session = ctx.stores.sessions.get(grant.sessionId);
      if (session?.workspace == null) throw notFound("preview");
      const prefix = `/preview/${token}/`;
      const rest = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : "";
      const rel = hidingWhy(() => [...checkRelative(grant.dir), ...checkRelative(decodeURIComponent(rest))].join("/"));
      const stored = session.workspace;
      const { file, bytes } = hidingWhy(() => {
        const workspace = ctx.workspaces.confine(stored, [agentPaths(ctx.root, session.projectId, session.agentId).workspacesDir]);
        refuseSecret(rel);
        let found = resolveInside(workspace, rel === "" ? "." : rel);
        if (statSync(found).isDirectory()) found = resolveInside(workspace, join(rel, "index.html"));
        refuseSecret(rel, found);
        const read = readFileBytes(found, MAX_PREVIEW);
        if (read.size > read.bytes.length) throw notFound("preview");
        return { file: found, bytes: read.bytes };
      });
      return new Response(bytes, {
        status: 200,
        headers: {
          "content-type": mimeOf(file),
          "content-length": String(bytes.length),
          "x-content-type-options": "nosniff",
          "content-security-policy": previewCsp(previewOrigin(url).origin),
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
        },
      });
    },
  );
}
