/**
 * `penguin docs`: serves the built documentation site (apps/docs, built by `npm run build`)
 * on 127.0.0.1 under /docs/ (the prefix the site is built for, the one the server serves it at
 * too) and opens it in the browser. A plain node:http file server, because the site
 * is static files and the server package (express, SQLite) would cost far more to load; it
 * answers GET and HEAD only, resolves every path inside the site folder (no `..`, no
 * symlink out), and serves the site's 404 page for a missing one. Imported on demand only.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { parsePortFlag } from "./docs-port.js";

export interface DocsFlags {
  port?: string;
  host?: string;
  dir?: string;
  open?: boolean;
}

/** Where the root build writes the site (relative to this file, in src/ and dist/ alike). */
export function builtDocsDir(): string {
  return fileURLToPath(new URL("../../../docs/site/.vitepress/dist", import.meta.url));
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The URL prefix the site is built for (apps/docs/site/.vitepress/config.ts `base`). */
export const DOCS_PREFIX = "/docs/";

/** The file a URL path names inside `root`, or undefined (outside it or the prefix, missing, or not a file). */
function fileFor(root: string, urlPath: string): string | undefined {
  const raw = urlPath.split("?")[0] ?? "/";
  if (!raw.startsWith(DOCS_PREFIX)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(raw.slice(DOCS_PREFIX.length - 1));
  } catch {
    return undefined;
  }
  if (path.includes("\0")) return undefined;
  const candidates = path.endsWith("/") ? [join(path, "index.html")] : [path, `${path}.html`, join(path, "index.html")];
  for (const candidate of candidates) {
    const full = resolve(root, `.${candidate}`);
    if (!existsSync(full)) continue;
    const real = realpathSync(full);
    if (real !== root && !real.startsWith(root + sep)) return undefined;
    if (statSync(real).isFile()) return real;
  }
  return undefined;
}

/** Serves the folder until closed; resolves once listening, with its URL. */
export function serveFolder(dir: string, port: number, host: string): Promise<{ server: Server; url: string }> {
  const root = realpathSync(dir);
  const server = createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    const url = req.url ?? "/";
    if (url === "/" || url === "/docs") {
      res.writeHead(302, { location: DOCS_PREFIX }).end();
      return;
    }
    const file = fileFor(root, url);
    const status = file === undefined ? 404 : 200;
    const served = file ?? join(root, "404.html");
    const body = existsSync(served) ? readFileSync(served) : Buffer.from("not found");
    res.writeHead(status, { "content-type": TYPES[extname(served)] ?? "application/octet-stream", "x-content-type-options": "nosniff" });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : port;
      resolvePromise({ server, url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}${DOCS_PREFIX}` });
    });
  });
}

function openBrowser(url: string): void {
  const [cmd, args] = process.platform === "darwin" ? ["open", [url]] : ["xdg-open", [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
}

export async function docsCommand(flags: DocsFlags): Promise<ExitCode> {
  const dir = resolve(flags.dir ?? builtDocsDir());
  if (!existsSync(join(dir, "index.html"))) {
    process.stderr.write(`penguin docs: the site is not built (${join(dir, "index.html")} is missing): run \`npm run build\` in the repository first\n`);
    return EXIT.usage;
  }
  const port = parsePortFlag(flags.port);
  if (port === undefined) {
    process.stderr.write(`penguin docs: invalid port "${String(flags.port)}": use a number from 0 to 65535\n`);
    return EXIT.usage;
  }
  const host = flags.host ?? "127.0.0.1";
  let served: { server: Server; url: string };
  try {
    served = await serveFolder(dir, port, host);
  } catch (error) {
    process.stderr.write(`penguin docs: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
  process.stdout.write(`docs at ${served.url} (Ctrl-C stops)\n`);
  if (flags.open !== false) openBrowser(served.url);
  await new Promise<void>((done) => {
    const stop = () => served.server.close(() => done());
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return EXIT.done;
}
