/**
 * A session's command sandbox in the web dashboard, in Chromium against the real server and
 * a testkit model: after a task whose tool call runs a shell command, the session header says
 * how that session's commands run. On this machine's server (sandbox on by default where
 * bwrap can run) it says "Sandboxed" with the network off; the admin switches the network on
 * (the server's session read agrees, and a reload still shows it on) and off again. Where
 * bwrap cannot run here, that server's header says "Commands unsandboxed" instead, and the
 * test's name says so. A second server, whose bwrap is missing on purpose, shows "Commands
 * unsandboxed" with the reason, the app-wide strip, and no switch, on any machine.
 *
 * Skips (with the reason) when Chromium is not installed, as the other browser suites do.
 */
import { existsSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@penguin/core";
import { CHROMIUM, signInAndRunTheScriptedTask, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
const availability = probeSandbox();
const NEW_PASSWORD = "sandbox-horse-battery-staple";
const MISSING_BWRAP = "/nonexistent/penguin-e2e/bwrap";

/** Signs in as the admin (setting a password), adds the testkit model, runs one task with a command; returns the session id. */
function signInAndRunACommand(h: Harness): Promise<string> {
  return signInAndRunTheScriptedTask(h, { newPassword: NEW_PASSWORD, apiKey: "sk-testkit-key-0004" });
}

/** The session as the server answers it to this page's signed-in user. */
async function sessionRead(page: Page, sessionId: string): Promise<{ sandboxNetwork: boolean; sandbox: unknown; permissions: unknown }> {
  return page.evaluate(async (id) => (await fetch(`/api/sessions/${encodeURIComponent(id)}`)).json(), sessionId);
}

function saveOnFailure(h: () => Harness | undefined, prefix: string) {
  return async (ctx: { task: { name: string; result?: { state?: string } } }) => {
    const harness = h();
    if (ctx.task.result?.state !== "fail" || harness === undefined) return;
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60);
    await harness.shot(`failed-${prefix}-${name}`).catch(() => undefined);
    if (harness.pageErrors.length > 0) console.warn(`[web e2e] page errors so far:\n${harness.pageErrors.join("\n")}`);
  };
}

describe.skipIf(!haveChromium)("a session's command sandbox in the web dashboard", () => {
  describe("on this machine's server (sandbox on by default)", () => {
    let h: Harness | undefined;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(async () => {
      await h?.close();
    });
    afterEach(saveOnFailure(() => h, "sandbox"));

    const name = availability.available
      ? "says Sandboxed with the network off, and the admin switches the network on (kept over a reload) and off again"
      : `says Commands unsandboxed (bwrap cannot run here: ${availability.reason ?? "unknown"})`;
    it(name, async () => {
      const harness = h as Harness;
      const { page } = harness;
      const sessionId = await signInAndRunACommand(harness);
      const header = page.locator("header").filter({ has: page.getByRole("button", { name: "Details" }) });
      if (!availability.available) {
        await header.getByText("Commands unsandboxed").waitFor();
        expect(await header.getByRole("switch").count()).toBe(0);
        return;
      }
      await header.getByText("Sandboxed", { exact: true }).waitFor();
      const network = header.getByRole("switch", { name: "Network for this session's commands" });
      await expect.poll(() => network.getAttribute("aria-checked")).toBe("false");
      expect(await network.textContent()).toBe("Network off");
      expect(await sessionRead(page, sessionId)).toMatchObject({ sandboxNetwork: false, sandbox: { available: true, enabled: true, serverNetwork: false }, permissions: { control: true, allowNetwork: true } });

      await network.click();
      await expect.poll(() => network.getAttribute("aria-checked")).toBe("true");
      expect(await network.textContent()).toBe("Network on");
      await expect.poll(async () => (await sessionRead(page, sessionId)).sandboxNetwork).toBe(true);
      await harness.shot("sandbox-network-on");

      await page.reload();
      const reloaded = page.getByRole("switch", { name: "Network for this session's commands" });
      await expect.poll(() => reloaded.getAttribute("aria-checked")).toBe("true");
      await reloaded.click();
      await expect.poll(() => reloaded.getAttribute("aria-checked")).toBe("false");
      await expect.poll(async () => (await sessionRead(page, sessionId)).sandboxNetwork).toBe(false);
      // Resource statuses (the 401 before signing in, optional reads) are the app's normal traffic, as in the other suites.
      expect(harness.pageErrors.filter((e) => !e.startsWith("console: Failed to load resource"))).toEqual([]);
    });
  });

  describe("on a server whose bwrap is missing", () => {
    let h: Harness | undefined;
    beforeAll(async () => {
      h = await startHarness({ app: { sandbox: { bwrapPath: MISSING_BWRAP } } });
    });
    afterAll(async () => {
      await h?.close();
    });
    afterEach(saveOnFailure(() => h, "unsandboxed"));

    it("says Commands unsandboxed, why, app-wide and in the session header, with no network switch", async () => {
      const harness = h as Harness;
      const { page } = harness;
      const sessionId = await signInAndRunACommand(harness);
      await page.getByRole("status").filter({ hasText: "Commands run unsandboxed: bwrap (bubblewrap) is not available on the server" }).waitFor();
      const badge = page.getByRole("status").filter({ hasText: "Commands unsandboxed" });
      await badge.waitFor();
      expect(await badge.getAttribute("title")).toMatch(/^bwrap \(bubblewrap\) is not available on the server: /);
      expect(await page.getByRole("switch").count()).toBe(0);
      expect((await sessionRead(page, sessionId)).sandbox).toEqual({ available: false, enabled: false, serverNetwork: false });
      await harness.shot("sandbox-missing-bwrap");
      // Resource statuses (the 401 before signing in, optional reads) are the app's normal traffic, as in the other suites.
      expect(harness.pageErrors.filter((e) => !e.startsWith("console: Failed to load resource"))).toEqual([]);
    });
  });
});
