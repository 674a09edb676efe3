/**
 * Serving the web app at `/`: the built SPA's files from `webDir` (confined like workspace
 * files, hashed `assets/` cached for a year), and `index.html` for any other GET path so
 * client-side routes survive a reload. Without a built app (no `webDir`, or no index.html in
 * it) every page is a short notice saying how to build it, while the API keeps working.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../http/api-error.js";
import type { RequestContext } from "../http/request-context.js";
import { resolveInside } from "../services/confined-path.js";
import { readFileBytes } from "../services/files.js";
import { mimeOf } from "../services/mime.js";

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PenguinHarness</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .3em}</style>
</head><body><h1>PenguinHarness</h1>
<p>The server is running without the web app: it was started as <code>penguin server</code>, or the web app is not built yet.</p>
<p>To use the browser, build it (<code>npm run build</code> in the repository) and start <code>penguin web</code>. The API is served under <code>/api</code>; its description is at <a href="/api/openapi.json"><code>/api/openapi.json</code></a>.</p>
</body></html>
`;

const MAX_ASSET = 50 * 1024 * 1024;

export function webAppHandler(webDir: string | undefined): (c: RequestContext) => Response {
  const built = webDir !== undefined && existsSync(join(webDir, "index.html"));
  return function serveWebApp(c) {
    if (c.method !== "GET" && c.method !== "HEAD") return new Response("method not allowed", { status: 405 });
    if (!built || webDir === undefined) return html(NOT_BUILT, 200);
    const path = decodedPath(c.url);
    if (path === undefined) return new Response("bad path", { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
    const file = path === "" ? undefined : existingFile(webDir, path);
    if (file !== undefined) {
      const { bytes } = readFileBytes(file, MAX_ASSET);
      const cache = path.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache";
      return new Response(bytes, { status: 200, headers: { "content-type": mimeOf(file), "cache-control": cache, "x-content-type-options": "nosniff" } });
    }
    if (/\.[A-Za-z0-9]{1,8}$/.test(path)) return new Response("not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
    const index = readFileBytes(join(webDir, "index.html"), MAX_ASSET).bytes;
    return new Response(index, { status: 200, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
  };
}

function decodedPath(url: URL): string | undefined {
  try {
    return decodeURIComponent(url.pathname).replace(/^\/+/, "");
  } catch {
    return undefined;
  }
}

/** `path` inside `dir` when it is a file there; undefined for a path that leaves `dir` or names no file. */
export function existingFile(dir: string, path: string): string | undefined {
  try {
    const file = resolveInside(dir, path);
    return statSync(file).isFile() ? file : undefined;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

function html(body: string, status: number): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-cache" } });
}
