/**
 * A newcomer's first day in the web app, in Chromium against the real server: the admin sets
 * the workspace roots on the Settings page (what a workspace outside them is refused with
 * points there), and the Chat page's folder picker then offers those roots and browses them,
 * down to a folder that becomes the workspace; the favicon the page links is served; and at a
 * phone's 375 px every page of the top menu and "Sign out" fit, with no sideways overflow.
 *
 * Skips (with the reason) when Chromium is not installed, as the other browser suites do.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
const NEW_PASSWORD = "first-day-horse-battery";

describe.skipIf(!haveChromium)("a newcomer's first day in the web app", () => {
  let h: Harness;
  let rootA = "";
  let rootB = "";

  beforeAll(async () => {
    h = await startHarness();
    const base = realpathSync(mkdtempSync(join(tmpdir(), "penguin-e2e-roots-")));
    rootA = join(base, "projects");
    rootB = join(base, "repos");
    mkdirSync(join(rootA, "alpha"), { recursive: true });
    mkdirSync(join(rootB, "webshop", "frontend"), { recursive: true });
    const { page } = h;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${h.server.url}/`);
    await page.getByLabel("User id").fill("admin");
    await page.getByLabel("Password").fill(h.initialPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Current password").fill(h.initialPassword);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set password and continue" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
  });

  afterAll(async () => {
    await h?.close();
    if (rootA !== "") rmSync(join(rootA, ".."), { recursive: true, force: true });
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail" || h === undefined) return;
    await h.shot(`failed-first-day-${ctx.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}`).catch(() => undefined);
    if (h.pageErrors.length > 0) console.warn(`[web e2e] page errors so far:\n${h.pageErrors.join("\n")}`);
  });

  it("refuses a workspace outside the roots with a pointer to Settings, where the admin sets the roots", async () => {
    const { page } = h;
    const refused = await page.evaluate(async (workspace) => {
      const r = await fetch("/api/projects/default_project/agents/default_agent/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workspace }) });
      return { status: r.status, body: (await r.json()) as { error?: { message?: string } } };
    }, join(rootB, "webshop"));
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toContain("Settings → Workspace roots");

    await page.getByRole("link", { name: "Settings" }).click();
    const section = page.getByRole("region", { name: "Workspace roots" });
    const field = section.getByLabel("Folders where workspaces may be");
    await expect.poll(() => field.isEnabled()).toBe(true);
    await field.fill(`${rootA}\n\n  ${rootB}  \n`);
    await section.getByRole("button", { name: "Save workspace roots" }).click();
    await section.getByText("Workspace roots saved.").waitFor();
    expect(await field.inputValue()).toBe(`${rootA}\n${rootB}`);
    const saved = await page.evaluate(async () => (await (await fetch("/api/admin/settings")).json()) as { workspaceRoots: string[] });
    expect(saved.workspaceRoots).toEqual([rootA, rootB]);
    await page.reload();
    await expect.poll(() => page.getByLabel("Folders where workspaces may be").inputValue()).toBe(`${rootA}\n${rootB}`);
    await h.shot("first-day-settings-roots");
  });

  it("the folder picker offers the roots and browses them down to the chosen workspace", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Chat" }).click();
    await page.getByRole("button", { name: "Browse…" }).click();
    const dialog = page.getByRole("dialog", { name: "Choose a workspace folder" });
    const roots = dialog.getByRole("group", { name: "Workspace roots" });
    await roots.getByRole("button", { name: rootB }).waitFor();
    expect(await roots.getByRole("button", { name: rootA }).count()).toBe(1);
    // It opens at the first root.
    await dialog.getByRole("button", { name: "alpha" }).waitFor();

    await roots.getByRole("button", { name: rootB }).click();
    await dialog.getByRole("button", { name: "webshop" }).click();
    await dialog.getByRole("button", { name: "frontend" }).click();
    await dialog.getByText(join(rootB, "webshop", "frontend"), { exact: true }).waitFor();
    await h.shot("first-day-picker");
    await dialog.getByRole("button", { name: "Use this folder" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await page.getByLabel("Workspace", { exact: true }).inputValue()).toBe(join(rootB, "webshop", "frontend"));
  });

  it("links a favicon the server serves", async () => {
    const { page } = h;
    const href = await page.locator('link[rel="icon"]').getAttribute("href");
    expect(href).toBe("/favicon.svg");
    const icon = await page.evaluate(async (path) => {
      const r = await fetch(path);
      return { status: r.status, type: r.headers.get("content-type"), text: await r.text() };
    }, href!);
    expect(icon.status).toBe(200);
    expect(icon.type).toBe("image/svg+xml");
    expect(icon.text).toContain("<svg");
  });

  it("at a phone's 375 px the whole top menu and Sign out fit, with no sideways overflow", async () => {
    const { page } = h;
    await page.setViewportSize({ width: 375, height: 740 });
    for (const path of ["/chat", "/settings", "/models"]) {
      await page.goto(`${h.server.url}${path}`);
      const nav = page.getByRole("navigation", { name: "Main" });
      await nav.waitFor();
      const overflow = await page.evaluate(() => {
        const navEl = document.querySelector('nav[aria-label="Main"]')!;
        const header = navEl.closest("header")!;
        return { page: document.documentElement.scrollWidth, nav: navEl.scrollWidth - navEl.clientWidth, header: header.scrollWidth - header.clientWidth };
      });
      expect(overflow, path).toEqual({ page: 375, nav: 0, header: 0 });
      for (const name of ["Chat", "Models", "Agents", "Usage", "Traces", "Settings"]) {
        const box = await nav.getByRole("link", { name }).boundingBox();
        expect(box, `${path} ${name}`).not.toBeNull();
        expect(box!.x, `${path} ${name}`).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, `${path} ${name}`).toBeLessThanOrEqual(375);
      }
      const signOut = await page.getByRole("button", { name: "Sign out" }).boundingBox();
      expect(signOut!.x + signOut!.width, path).toBeLessThanOrEqual(375);
    }
    await h.shot("first-day-phone-menu");
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
