// The site builds: `vitepress build` into a temp folder (VitePress itself fails the build on a
// dead link), a page for every Markdown file in both languages, the local search index holding
// the words people look for; then `penguin docs` (the built CLI) serves that folder on a free
// port under /docs/ (the prefix the site is built for, which the server uses too): pages in both
// languages, the 404 page for a missing one, nothing outside the folder or the prefix.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../cli/test/helpers/build.js";
import { REPO, SITE, sitePages } from "./site-files.js";

// The site is built into <wrapper>/site; <wrapper>/secret.txt is what a path escaping it would reach.
const wrapper = mkdtempSync(join(tmpdir(), "penguin-docs-build-"));
const out = join(wrapper, "site");
writeFileSync(join(wrapper, "secret.txt"), "outside the site");
let docs: ChildProcess | undefined;
afterAll(() => {
  docs?.kill("SIGTERM");
  rmSync(wrapper, { recursive: true, force: true });
});

/** A GET with the path sent as given (fetch would normalize `..` away before sending). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("the documentation site", () => {
  beforeAll(async () => {
    const vitepress = join(REPO, "apps/docs/node_modules/.bin/vitepress");
    const r = await run(vitepress, ["build", SITE, "--outDir", out], join(REPO, "apps/docs"));
    expect(r.code, r.output).toBe(0);
  }, 300_000);

  it("builds a page for every Markdown file, in English and Chinese", () => {
    const pages = sitePages();
    expect(pages.filter((p) => p.path.startsWith("zh/")).length).toBe(pages.filter((p) => !p.path.startsWith("zh/")).length);
    for (const page of pages) expect(existsSync(join(out, page.path.replace(/\.md$/, ".html"))), page.path).toBe(true);
  });

  it("is built for the /docs/ prefix both penguin docs and the server serve it under", () => {
    const index = readFileSync(join(out, "index.html"), "utf8");
    expect(index).toContain('"/docs/assets/');
    expect(index).not.toMatch(/"\/assets\//);
  });

  it("ships a local search index with the pages' words in both languages", () => {
    const chunks = join(out, "assets", "chunks");
    const indexes = readdirSync(chunks).filter((f) => f.startsWith("@localSearchIndex"));
    expect(indexes.length, "one index per language").toBe(2);
    const text = indexes.map((f) => readFileSync(join(chunks, f), "utf8")).join("\n");
    expect(text).toContain("fork");
    expect(text).toContain("分叉");
  });

  describe("served by penguin docs", () => {
    let url = "";
    beforeAll(async () => {
      await ensureBuilt();
      docs = spawn(process.execPath, [join(REPO, "apps/cli/bundle/main.js"), "docs", "--dir", out, "--port", "0", "--no-open"], { stdio: ["ignore", "pipe", "pipe"] });
      const lines = createInterface({ input: docs.stdout! });
      url = await new Promise<string>((resolve, reject) => {
        lines.on("line", (line) => {
          const m = /^docs at (http:\/\/\S+) /.exec(line);
          if (m?.[1] !== undefined) resolve(m[1]);
        });
        docs!.on("exit", (code) => reject(new Error(`penguin docs exited ${String(code)} before listening`)));
      });
    }, 300_000);

    it("answers the pages in both languages and the 404 page for a missing one", async () => {
      for (const path of ["", "guide/replay.html", "zh/", "zh/guide/security.html", "reference/http.html"]) {
        const res = await fetch(new URL(path, url));
        expect(res.status, path).toBe(200);
        expect(res.headers.get("content-type")).toContain("text/html");
      }
      expect((await fetch(new URL("guide/replay.html", url)).then((r) => r.text()))).toContain("penguin fork");
      expect((await fetch(new URL("no/such/page.html", url))).status).toBe(404);
      expect(new URL(url).pathname).toBe("/docs/");
      const bare = await fetch(new URL("/", url), { redirect: "manual" });
      expect(bare.status).toBe(302);
      expect(bare.headers.get("location")).toBe("/docs/");
      expect((await rawGet(url, "/guide/replay.html")).status, "a page outside the /docs/ prefix").toBe(404);
    });

    it("serves nothing outside the built folder", async () => {
      for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/guide/../../secret.txt", "/docs/../secret.txt", "/docs/..%2fsecret.txt", "/docs/guide/../../secret.txt", "/docs/%2e%2e/secret.txt"]) {
        const res = await rawGet(url, path);
        expect(res.status, path).toBe(404);
        expect(res.body, path).not.toContain("outside the site");
      }
    });

    it("refuses to start without a built site, saying how to build it", async () => {
      const empty = mkdtempSync(join(tmpdir(), "penguin-docs-empty-"));
      try {
        const r = await run(process.execPath, [join(REPO, "apps/cli/bundle/main.js"), "docs", "--dir", empty, "--no-open"], REPO);
        expect(r.code).toBe(2);
        expect(r.output).toContain("the site is not built");
        expect(r.output).toContain("npm run build");
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });
  });
});
