// `penguin web --no-open` and `penguin server`: on a fresh data root the built CLI prints the
// URL and the framed initial password, serves the API there, refuses a second server on the
// same root, and stops cleanly on SIGTERM.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli } from "./helpers/run-cli.js";

let root: string | undefined;
beforeAll(() => ensureBuilt(), 240_000);
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("penguin web / server", () => {
  it("prints the URL and the framed initial password, then serves the API", async () => {
    root = mkdtempSync(join(tmpdir(), "penguin-web-"));
    const env = { ...process.env, PENGUIN_HOME: root, NO_COLOR: "1" };
    const child = spawnCli(["web", "--no-open", "--port", "0"], { env });
    const out = collectOutput(child);
    await until(() => /penguin-[a-z0-9-]+/.test(out.stdout()) && out.stdout().includes("└"), "the notice");
    const text = out.stdout();
    const url = /URL:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
    const password = /(penguin-[a-z0-9]{4}(?:-[a-z0-9]{4})+)/.exec(text)?.[1];
    expect(url).toBeDefined();
    expect(text).toMatch(/^┌─+┐$/m);
    expect(readFileSync(join(root, "initial-admin-password"), "utf8").trim()).toBe(password);
    expect(statSync(join(root, "initial-admin-password")).mode & 0o777).toBe(0o600);

    const login = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password }) });
    expect(login.status).toBe(200);
    expect(login.headers.get("set-cookie")).toMatch(/penguin_session=.*HttpOnly/i);

    // One server per data root: a second `server` refuses, a second `web` attaches.
    const second = await runCli(["server", "--port", "0"], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already running/);
    const attach = await runCli(["web", "--no-open", "--port", "0"], { env });
    expect(attach.code).toBe(0);
    expect(attach.stdout).toContain(url!);

    child.kill("SIGTERM");
    expect((await exited(child)).code).toBe(0);
    expect(existsSync(join(root, "server.lock"))).toBe(false);
  }, 60_000);

  it("rejects a bad port with exit code 2", async () => {
    root = mkdtempSync(join(tmpdir(), "penguin-web-"));
    const r = await runCli(["server", "--port", "99999"], { env: { ...process.env, PENGUIN_HOME: root } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid port/);
  });
});
