// Serving the web app (files, SPA fallback, the not-built page) and `runServerCommand`:
// address resolution (flag > PORT/HOST > default), attaching `penguin web` to a running
// server, refusing a second `penguin server`, opening the browser, and stopping cleanly.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runServerCommand } from "../src/command.js";
import { ManualTicker } from "../src/runtime/clock.js";
import { startServer } from "../src/start.js";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

describe("the web app", () => {
  it("serves built files, falls back to index.html for client routes, and never leaks outside the folder", async () => {
    const web = temp("penguin-web-");
    writeFileSync(join(web, "index.html"), "<!doctype html><div id=app></div>");
    mkdirSync(join(web, "assets"));
    writeFileSync(join(web, "assets", "app-1234.js"), "console.log(1)");
    h = await startHarness({ app: { webDir: web } });
    const c = h.client();
    const index = await c.raw("GET", "/");
    expect(await index.text()).toContain("id=app");
    const asset = await c.raw("GET", "/assets/app-1234.js");
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect(await (await c.raw("GET", "/sessions/abc")).text()).toContain("id=app");
    expect((await c.raw("GET", "/assets/missing.js")).status).toBe(404);
    expect((await c.raw("GET", "/%2e%2e/%2e%2e/etc/passwd")).status).not.toBe(500);
    expect(await (await c.raw("GET", "/..%2f..%2fetc%2fpasswd")).text()).not.toContain("root:");
  });

  it("says the app is not built when there is none, while the API works", async () => {
    h = await startHarness({ app: { webDir: temp("penguin-empty-web-") } });
    const page = await h.client().raw("GET", "/");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("not built");
    expect((await h.client().get("/api/version")).status).toBe(200);
  });
});

describe("runServerCommand", () => {
  it("takes the address from PORT/HOST when no flag is given, opens the browser for web, and stops on request", async () => {
    const root = temp("penguin-cmd-");
    const out: string[] = [];
    const opened: string[] = [];
    let browserOpened: () => void = () => undefined;
    const openedOnce = new Promise<void>((resolve) => (browserOpened = resolve));
    const stop = new AbortController();
    const openUrl = (u: string) => {
      opened.push(u);
      browserOpened();
    };
    const running = runServerCommand({ root, web: true, open: true, reindex: false, out: (l) => out.push(l), err: (l) => out.push(l), env: { PORT: "0", HOST: "127.0.0.1" }, webDir: temp("penguin-nowebdir-"), stop: stop.signal, openUrl, app: { ticker: new ManualTicker() } });
    await openedOnce;
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(opened[0]).not.toMatch(/:7364$/);
    expect(out.join("\n")).toContain(opened[0]);
    expect((await fetch(`${opened[0]}/api/version`)).status).toBe(200);
    stop.abort();
    expect(await running).toBe(0);
  });

  it("lets the flag win over PORT, refuses bad ports, attaches web to a running server and refuses a second server", async () => {
    const root = temp("penguin-cmd2-");
    const err: string[] = [];
    expect(await runServerCommand({ root, port: "70000", web: false, open: false, reindex: false, out: () => undefined, err: (l) => err.push(l) })).toBe(2);
    expect(err[0]).toContain("invalid port");

    const server = await startServer({ root, port: 0, env: {}, app: { ticker: new ManualTicker() } });
    try {
      const out: string[] = [];
      const opened: string[] = [];
      const attached = await runServerCommand({ root, port: "0", web: true, open: true, reindex: false, out: (l) => out.push(l), err: (l) => out.push(l), env: { PORT: "not-a-port" }, openUrl: (u) => opened.push(u) });
      expect(attached).toBe(0);
      expect(out).toEqual([`PenguinHarness is already running at ${server.url}`]);
      expect(opened).toEqual([server.url]);
      const refused: string[] = [];
      expect(await runServerCommand({ root, port: 0, web: false, open: false, reindex: false, out: () => undefined, err: (l) => refused.push(l) })).toBe(1);
      expect(refused[0]).toContain(server.url);
    } finally {
      await server.close();
    }
  });
});
