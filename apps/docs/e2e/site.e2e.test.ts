// The built documentation site in a real browser: `penguin docs` (the built CLI) serves
// apps/docs/site/.vitepress/dist on a free port; Chromium opens it, switches to Chinese from
// the language menu, searches for `fork` with the local search and follows the first result
// to a page about forks, then checks dark mode and the phone layout's menu.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const BUILT = join(REPO, "apps/docs/site/.vitepress/dist");
const CLI = join(REPO, "apps/cli/bundle/main.js");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-component-update", "--disable-sync"];

let docs: ChildProcess | undefined;
let context: BrowserContext | undefined;
let page: Page;
let url = "";
const profile = mkdtempSync(join(tmpdir(), "penguin-docs-e2e-chromium-"));
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(BUILT, "index.html"))) throw new Error(`the site is not built (${BUILT}/index.html missing): run \`npm run build --prefix apps/docs\` first`);
  if (!existsSync(CLI)) throw new Error(`the CLI is not built (${CLI} missing): run \`npm run build\` first`);
  docs = spawn(process.execPath, [CLI, "docs", "--port", "0", "--no-open"], { stdio: ["ignore", "pipe", "inherit"] });
  url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: docs!.stdout! }).on("line", (line) => {
      const m = /^docs at (http:\/\/\S+) /.exec(line);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    docs!.on("exit", (code) => reject(new Error(`penguin docs exited ${String(code)} before listening`)));
  });
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, viewport: { width: 1280, height: 860 } });
  context.setDefaultTimeout(15_000);
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await context?.close().catch(() => undefined);
  docs?.kill("SIGTERM");
  rmSync(profile, { recursive: true, force: true });
});

describe("the documentation site in a browser", () => {
  it("opens, switches to Chinese, finds `fork` and follows the result", async () => {
    await page.goto(url);
    await expect.poll(() => page.locator(".VPHero .name").textContent()).toContain("PenguinHarness");

    await page.locator(".VPNavBarTranslations").hover();
    await page.locator(".VPNavBarTranslations").getByRole("link", { name: "简体中文" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/docs/zh/");
    await expect.poll(() => page.locator(".VPHero .text").textContent()).toContain("开源的 Agent Harness");

    await page.locator(".VPNavBarSearch .DocSearch-Button").click();
    await page.locator("#localsearch-input").fill("fork");
    const first = page.locator(".VPLocalSearchBox .results .result").first();
    await first.waitFor();
    await first.click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/docs\/zh\/.+\.html$/);
    await expect.poll(async () => (await page.locator(".vp-doc").textContent()) ?? "").toContain("fork");
    expect(pageErrors).toEqual([]);
  });

  it("has dark mode and a phone layout", async () => {
    await page.goto(new URL("guide/replay.html", url).href);
    const dark = () => page.evaluate(() => document.documentElement.classList.contains("dark"));
    const before = await dark();
    await page.locator(".VPNavBar .VPSwitchAppearance").first().click();
    await expect.poll(dark).toBe(!before);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator(".VPNavBarHamburger").click();
    await expect.poll(() => page.locator(".VPNavScreen").isVisible()).toBe(true);
    await expect.poll(() => page.locator(".VPNavScreen").textContent()).toContain("简体中文");
  });
});
