// The server serves the built documentation site at /docs/ without a sign-in, confined to the
// built folder: a real server on 127.0.0.1 over a folder shaped like VitePress's output, a
// secret file beside that folder and a symlink inside it pointing at the secret. Paths are
// sent raw (node:http, not fetch, which would normalize `..` away before sending).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** <wrapper>/site is the built site; <wrapper>/secret.txt is what an escaping path would reach. */
function builtSite(): string {
  const wrapper = mkdtempSync(join(tmpdir(), "penguin-docs-site-"));
  dirs.push(wrapper);
  const site = join(wrapper, "site");
  mkdirSync(join(site, "guide"), { recursive: true });
  mkdirSync(join(site, "zh"), { recursive: true });
  mkdirSync(join(site, "assets"), { recursive: true });
  writeFileSync(join(site, "index.html"), "<!doctype html><title>home</title>landing page");
  writeFileSync(join(site, "404.html"), "<!doctype html><title>404</title>PAGE NOT FOUND");
  writeFileSync(join(site, "guide", "replay.html"), "<!doctype html>penguin fork");
  writeFileSync(join(site, "zh", "index.html"), "<!doctype html>中文首页");
  writeFileSync(join(site, "assets", "app.js"), "console.log('docs')");
  writeFileSync(join(wrapper, "secret.txt"), "outside the site");
  symlinkSync(join(wrapper, "secret.txt"), join(site, "escape.html"));
  return site;
}

function rawGet(port: number, path: string, method = "GET"): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the documentation site at /docs/", () => {
  it("serves the built pages and assets to a visitor who is not signed in", async () => {
    h = await startHarness({ app: { docsDir: builtSite() } });
    const home = await rawGet(h.port, "/docs/");
    expect(home.status).toBe(200);
    expect(home.headers["content-type"]).toContain("text/html");
    expect(home.body).toContain("landing page");
    expect((await rawGet(h.port, "/docs/guide/replay.html")).body).toContain("penguin fork");
    expect((await rawGet(h.port, "/docs/guide/replay")).body, "a clean URL finds the .html").toContain("penguin fork");
    expect((await rawGet(h.port, "/docs/zh/")).body).toContain("中文首页");
    const asset = await rawGet(h.port, "/docs/assets/app.js");
    expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    const bare = await rawGet(h.port, "/docs");
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe("/docs/");
    // The API still wants a sign-in: /docs/ is the only open door added.
    expect((await rawGet(h.port, "/api/sessions")).status).toBe(401);
  });

  it("answers the site's 404 page for a missing page and for every path that escapes the folder", async () => {
    h = await startHarness({ app: { docsDir: builtSite() } });
    const missing = await rawGet(h.port, "/docs/no/such/page.html");
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("PAGE NOT FOUND");
    for (const path of ["/docs/..%2fsecret.txt", "/docs/guide/..%2f..%2fsecret.txt", "/docs/%2e%2e%2fsecret.txt", "/docs/escape.html", "/docs/escape", "/docs/%00", "/docs/%E0%A4%A"]) {
      const res = await rawGet(h.port, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain("outside the site");
    }
    // Paths the URL parser folds out of /docs/ are not docs requests; they reach nothing outside either.
    for (const path of ["/docs/../secret.txt", "/docs/%2e%2e/secret.txt"]) expect((await rawGet(h.port, path)).body, path).not.toContain("outside the site");
    expect((await rawGet(h.port, "/docs/guide/replay.html", "POST")).status).toBe(405);
  });

  it("says how to build the site when it is not built", async () => {
    const empty = mkdtempSync(join(tmpdir(), "penguin-docs-unbuilt-"));
    dirs.push(empty);
    h = await startHarness({ app: { docsDir: empty } });
    const res = await rawGet(h.port, "/docs/");
    expect(res.status).toBe(404);
    expect(res.body).toContain("not built");
    expect(res.body).toContain("npm run build");
  });
});
