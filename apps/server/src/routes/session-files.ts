/**
 * The workspace file browser of a session (`/api/sessions/:id/files…`), confined to the
 * session's workspace by services/confined-path.ts: `..`, absolute paths and symlinks that
 * lead out are refused (400 `invalid_path`) before anything is read. The workspace itself
 * must still pass the workspace-root rules (services/workspace-roots.ts) and secret files
 * (`.project_config.toml`, `.vault.toml`, databases) are refused by every route here.
 *
 *   GET  files?path=                      one folder level
 *   GET  files/content?path=              the file as JSON (UTF-8 text or base64, ≤ 2 MB)
 *   GET  files/content?path=&preview=1    raw, inline, with nosniff and a sandbox CSP
 *   GET  files/content?path=&download=1   raw, as an attachment
 *   POST files/stat {paths}               existence/type/size for each path
 *   PUT  files/content {path, dataBase64} write a file (≤ 14 MB)
 *   GET  files/preview-redirect?path=     302 to the file on the preview origin (routes/preview.ts),
 *                                         under a token bound to this session and the file's
 *                                         folder; `&format=json` answers `{url}` instead
 */
import { closeSync, constants, lstatSync, openSync, writeSync } from "node:fs";
import { Schema } from "effect";
import { Text, WithDefault } from "../http/schemas.js";
import { ApiError, notFound } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { SessionGrant } from "../auth/access.js";
import type { ServerContext } from "../server-context.js";
import { checkRelative, resolveForWrite, resolveInside } from "../services/confined-path.js";
import { listDir, readFileBytes, readFileContent } from "../services/files.js";
import { previewOrigin } from "../services/preview-tokens.js";
import { rawFileResponse } from "../services/raw-file.js";
import { isSecretName, refuseSecret } from "../services/workspace-roots.js";
import { FileContent, FileWritten, PathStats, PreviewUrl, WorkspaceListing } from "../contract/index.js";

const MAX_JSON_READ = 2 * 1024 * 1024;
const MAX_RAW = 200 * 1024 * 1024;
const MAX_WRITE = 14 * 1024 * 1024;
const Flag = Schema.optional(Schema.Literal("1", "true", ""));

export function sessionFileRoutes(table: RouteTable, ctx: ServerContext): void {
  /** The session's workspace, if it may still be served: its real path under the roots. */
  const workspaceOf = (grant: SessionGrant): string => {
    if (grant.session.workspace === null) throw notFound("workspace");
    return ctx.workspaces.confine(grant.session.workspace, [grant.agent.workspacesDir]);
  };
  /** The real path of an existing, non-secret entry of the workspace. */
  const existing = (grant: SessionGrant, path: string): string => {
    refuseSecret(path);
    const real = resolveInside(workspaceOf(grant), path);
    refuseSecret(path, real);
    return real;
  };

  table.add(
    { method: "get", path: "/api/sessions/:id/files", operationId: "files.list", summary: "One folder of the workspace", tag: "files", access: "session", query: Schema.Struct({ path: WithDefault(Schema.String, "") }), responses: { 200: { description: "{path, entries}", schema: WorkspaceListing } } },
    ({ grant, query }) => {
      const dir = query.path === "" ? resolveInside(workspaceOf(grant), ".") : existing(grant, query.path);
      if (!lstatSync(dir).isDirectory()) throw new ApiError(400, "invalid_path", "the path is not a folder", { field: "path" });
      return json({ path: query.path, entries: listDir(dir).filter((e) => !isSecretName(e.name)) });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/files/content",
      operationId: "files.read",
      summary: "A workspace file: JSON, or raw with preview/download",
      tag: "files",
      access: "session",
      query: Schema.Struct({ path: Text(1), preview: Flag, download: Flag }),
      responses: { 200: { description: "{path, size, encoding, content, truncated}, or the raw bytes", schema: FileContent } },
    },
    ({ grant, query }) => {
      const file = existing(grant, query.path);
      if (query.preview !== undefined || query.download !== undefined) {
        const { bytes, size } = readFileBytes(file, MAX_RAW);
        if (size > bytes.length) throw new ApiError(413, "payload_too_large", "the file is too large to serve");
        return rawFileResponse(file, bytes, query.download !== undefined ? "download" : "preview");
      }
      return json({ path: query.path, ...readFileContent(file, MAX_JSON_READ) }, 200, { "x-content-type-options": "nosniff" });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/files/preview-redirect",
      operationId: "files.previewRedirect",
      summary: "Redirect to a workspace file on the separate preview origin",
      tag: "files",
      access: "session",
      query: Schema.Struct({ path: Text(1), format: Schema.optional(Schema.Literal("json")) }),
      responses: { 302: { description: "Location: the preview URL" }, 200: { description: "{url} with format=json", schema: PreviewUrl } },
    },
    ({ grant, query, c }) => {
      const file = existing(grant, query.path);
      if (!lstatSync(file).isFile()) throw new ApiError(400, "invalid_path", "the path is not a file", { field: "path" });
      const segments = checkRelative(query.path);
      const name = segments.pop() ?? "";
      const origin = previewOrigin(c.url);
      const token = ctx.previews.sign({ sessionId: grant.session.sessionId, dir: segments.join("/"), host: origin.host });
      const url = `${origin.origin}/preview/${token}/${encodeURIComponent(name)}`;
      return query.format === "json" ? json({ url }) : new Response(null, { status: 302, headers: { location: url, "cache-control": "no-store" } });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/sessions/:id/files/stat",
      operationId: "files.stat",
      summary: "Existence, type and size of workspace paths",
      tag: "files",
      access: "session",
      body: Schema.Struct({ paths: Schema.Array(Text(1)).pipe(Schema.minItems(1), Schema.maxItems(500)) }),
      responses: { 200: { description: "{stats: [{path, exists, type?, size?, mtimeMs?, error?}]}", schema: PathStats } },
    },
    ({ grant, body }) => {
      workspaceOf(grant);
      const stats = body.paths.map((path) => {
        try {
          const st = lstatSync(existing(grant, path));
          return { path, exists: true, type: st.isDirectory() ? "dir" : st.isFile() ? "file" : "other", size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
        } catch (error) {
          if (error instanceof ApiError && error.code === "invalid_path") return { path, exists: false, error: error.message };
          return { path, exists: false };
        }
      });
      return json({ stats });
    },
  );

  table.add(
    {
      method: "put",
      path: "/api/sessions/:id/files/content",
      operationId: "files.write",
      summary: "Write a workspace file",
      tag: "files",
      access: "session",
      need: "control",
      body: Schema.Struct({ path: Text(1), dataBase64: Schema.String }),
      maxBodyBytes: Math.ceil(MAX_WRITE * 1.4) + 4096,
      responses: { 200: { description: "{path, size}", schema: FileWritten } },
    },
    ({ grant, body }) => {
      const data = Buffer.from(body.dataBase64, "base64");
      if (data.length > MAX_WRITE) throw new ApiError(413, "payload_too_large", "a file may be at most 14 MB");
      refuseSecret(body.path);
      const target = resolveForWrite(workspaceOf(grant), body.path);
      refuseSecret(body.path, target);
      let fd: number;
      try {
        fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
      } catch {
        throw new ApiError(400, "invalid_path", "the path cannot be written (a symlink or a folder is in the way)", { field: "path" });
      }
      try {
        writeSync(fd, data);
      } finally {
        closeSync(fd);
      }
      return json({ path: body.path, size: data.length });
    },
  );
}
