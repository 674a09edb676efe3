// The preview origin: the redirect signs a token for the file's folder and points at the
// other loopback name; the preview serves that folder's files there (relative links work)
// with nosniff and a sandbox CSP, and answers the same 404 to a token used on the wrong
// host, a tampered or expired token, a path out of the folder, and a missing file. The
// second half runs over a real socket, as a browser would reach both origins.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../src/start.js";
import { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession } from "./helpers/session.js";
import { testDatabaseOption } from "./helpers/test-database.js";

let h: Harness | undefined;
let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  await h?.cleanup();
  h = undefined;
});

function site(workspace: string): void {
  mkdirSync(join(workspace, "site"), { recursive: true });
  writeFileSync(join(workspace, "site", "index.html"), '<link rel="stylesheet" href="style.css"><h1>hi</h1>');
  writeFileSync(join(workspace, "site", "style.css"), "h1{color:red}");
  writeFileSync(join(workspace, "secret.txt"), "outside the previewed folder");
}

describe("preview origin", () => {
  it("redirects to the other loopback origin and serves only the token's folder there", async () => {
    h = await startHarness();
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    site(h.workspace);
    const redirect = await c.raw("GET", `/api/sessions/${sid}/files/preview-redirect?path=site/index.html`);
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get("location") ?? "");
    expect(location.host).toBe("127.0.0.1");
    expect(location.pathname).toMatch(/^\/preview\/[\w-]+\.[\w-]+\/index\.html$/);
    const asJson = await c.get(`/api/sessions/${sid}/files/preview-redirect?path=site/index.html&format=json`);
    expect(new URL(asJson.body.url).host).toBe("127.0.0.1");

    const anonymous = h.client();
    const page = await h.request(location.href);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>hi</h1>");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors http://localhost");
    expect(page.headers.get("set-cookie")).toBeNull();
    const base = location.href.replace(/index\.html$/, "");
    expect(await (await h.request(`${base}style.css`)).text()).toBe("h1{color:red}");
    expect((await h.request(base)).status).toBe(200);

    const refused = [
      `${base}..%2Fsecret.txt`,
      `${base}missing.css`,
      location.href.replace("127.0.0.1", "localhost"),
      location.href.replace(/\/preview\/([\w-]+)\./, "/preview/$1x."),
    ];
    for (const url of refused) {
      const res = await h.request(url);
      expect(res.status, url).toBe(404);
      expect((await res.json()).error.message, url).toBe("preview not found");
    }
    expect((await anonymous.raw("GET", `/api/sessions/${sid}/files/preview-redirect?path=site/index.html`)).status).toBe(401);
    expect((await c.raw("GET", `/api/sessions/${sid}/files/preview-redirect?path=..%2Fetc%2Fpasswd`)).status).toBe(400);

    h.clock.advance(16 * 60 * 1000);
    expect((await h.request(location.href)).status).toBe(404);
  });

  it("works across two real origins: the app on 127.0.0.1, the preview on localhost", async () => {
    h = await startHarness();
    running = await startServer({ root: h.root, port: 0, env: {}, now: h.clock.now, app: { ticker: h.ticker, generateTitles: false, workspaceRoots: [h.workspace], ...(await testDatabaseOption(h.root)) } });
    await h.server.close();
    const app = new ApiClient((url, init) => fetch(url, { ...init, redirect: "manual" }), running.url);
    await app.signIn("admin", h.adminPassword);
    const sid = await newSession(app, { workspace: h.workspace });
    site(h.workspace);
    const redirect = await app.raw("GET", `/api/sessions/${sid}/files/preview-redirect?path=site/index.html`, {});
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get("location") ?? "");
    expect(location.hostname).toBe("localhost");
    expect(location.port).toBe(String(running.port));
    const page = await fetch(location.href.replace("localhost", "127.0.0.1"), { redirect: "manual" });
    expect(page.status).toBe(404);
    const preview = await fetch(location.href, { redirect: "manual" });
    expect(preview.status).toBe(200);
    expect(await preview.text()).toContain("<h1>hi</h1>");
  });
});
