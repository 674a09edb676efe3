/**
 * Serving the built documentation site (apps/docs, VitePress, built with base `/docs/`) at
 * `/docs/`, as `penguin docs` does on its own port. Reading the docs needs no sign-in: the site
 * is the same static files anyone with the repository has. Paths go through `resolveInside`
 * like workspace files (no `..`, no symlink out of the folder), so only the built folder is
 * reachable; a missing page or a refused path gets the site's own 404 page with status 404.
 * VitePress writes `guide/x.html`; a link without `.html` or to a folder finds it too.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RequestContext } from "../http/request-context.js";
import { readFileBytes } from "../services/files.js";
import { mimeOf } from "../services/mime.js";
import { existingFile } from "./static-site.js";

/** The URL prefix the site is built for (apps/docs/site/.vitepress/config.ts `base`). */
export const DOCS_PREFIX = "/docs/";

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PenguinHarness documentation</title></head>
<body><h1>The documentation site is not built</h1>
<p>Build it with <code>npm run build</code> in the repository (it writes apps/docs/site/.vitepress/dist), then reload.</p>
</body></html>
`;

const MAX_FILE = 50 * 1024 * 1024;

/** True for the paths this handler answers (`/docs` and everything under `/docs/`). */
export function isDocsPath(path: string): boolean {
  return path === "/docs" || path.startsWith(DOCS_PREFIX);
}

export function docsSiteHandler(docsDir: string | undefined): (c: RequestContext) => Response {
  const built = docsDir !== undefined && existsSync(join(docsDir, "index.html"));
  return function serveDocs(c) {
    if (c.method !== "GET" && c.method !== "HEAD") return new Response("method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
    if (c.url.pathname === "/docs") return new Response(null, { status: 302, headers: { location: DOCS_PREFIX } });
    if (!built || docsDir === undefined) return page(NOT_BUILT, 404, "text/html; charset=utf-8");
    const file = siteFile(docsDir, c.url.pathname.slice(DOCS_PREFIX.length));
    if (file !== undefined) return page(readFileBytes(file, MAX_FILE).bytes, 200, mimeOf(file));
    const notFound = siteFile(docsDir, "404.html");
    return notFound === undefined ? page("not found", 404, "text/plain; charset=utf-8") : page(readFileBytes(notFound, MAX_FILE).bytes, 404, "text/html; charset=utf-8");
  };
}

/** The file a path under /docs/ names inside the built folder: as given, with `.html`, or its index.html. */
function siteFile(dir: string, encodedPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(encodedPath);
  } catch {
    return undefined;
  }
  const candidates = path === "" || path.endsWith("/") ? [`${path}index.html`] : [path, `${path}.html`, `${path}/index.html`];
  for (const candidate of candidates) {
    const file = existingFile(dir, candidate);
    if (file !== undefined) return file;
  }
  return undefined;
}

function page(body: string | Uint8Array, status: number, type: string): Response {
  return new Response(body, { status, headers: { "content-type": type, "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
}
