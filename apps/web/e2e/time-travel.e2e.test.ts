/**
 * Time travel end to end, in Chromium, against the real server and a testkit model (issue
 * 17's web test): a session runs a tool call; on the Traces page the scrubber steps, plays
 * and jumps to that tool call (the timeline highlights it), the state panel shows the state
 * there with what changed since the previous step, "Fork from here" opens the fork's chat,
 * a message sent there gets its answer (and the model saw every call paired with an output),
 * and the sidebar marks the fork with a badge linking back to its origin.
 *
 * The page is saved at 1280×800 and at 390×844, and at phone width it does not scroll
 * sideways. Skips (with the reason) when Chromium is not installed, as the main suite does.
 */
import { existsSync } from "node:fs";
import type { Locator } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, signInAndRunTheScriptedTask, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
const NEW_PASSWORD = "time-travel-horse-battery";

describe.skipIf(!haveChromium)("time travel in the web dashboard", () => {
  let h: Harness;
  let sourceUrl = "";

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail" || h === undefined) return;
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60);
    await h.shot(`failed-time-travel-${name}`).catch(() => undefined);
    if (h.pageErrors.length > 0) console.warn(`[web e2e] page errors so far:\n${h.pageErrors.join("\n")}`);
  });

  /**
   * Saves the page at desktop and phone width, scrolled to `focus` when given (the page body
   * scrolls in its own box, so a full-page capture would not show more); at phone width
   * nothing may scroll sideways.
   */
  async function shotBothWidths(name: string, focus?: Locator): Promise<void> {
    const { page } = h;
    const scroll = async () => {
      if (focus !== undefined) await focus.evaluate((el) => el.scrollIntoView({ block: "start" }));
    };
    await page.setViewportSize({ width: 1280, height: 800 });
    await scroll();
    await h.shot(name);
    await page.setViewportSize({ width: 390, height: 844 });
    await scroll();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
    await h.shot(`${name}-phone`);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it("signs in, adds the testkit model and runs a task with a tool call", async () => {
    await signInAndRunTheScriptedTask(h, { newPassword: NEW_PASSWORD, apiKey: "sk-testkit-key-0003" });
    sourceUrl = h.page.url();
  });

  it("scrubs to the tool call, shows the state there, forks from it and chats in the fork", async () => {
    const { page } = h;
    const sessionId = decodeURIComponent(sourceUrl.split("/chat/")[1] ?? "");
    await page.getByRole("link", { name: "Traces" }).click();
    await page.getByRole("button", { name: sessionId.replace(/^session-\d{4}-\d{2}-\d{2}-/, "") }).click();
    const cursor = page.getByLabel("Cursor", { exact: true });
    const slider = page.getByRole("slider", { name: "Event" });
    // The slider says where the cursor is: "event N of M: <event>".
    const cursorAt = async () => {
      const m = /^event (\d+) of (\d+)/.exec((await slider.getAttribute("aria-valuetext")) ?? "");
      return { n: Number(m?.[1] ?? 0), of: Number(m?.[2] ?? -1) };
    };
    const cursorEvent = async () => (await cursorAt()).n;
    // The cursor starts on the last event.
    await expect.poll(async () => { const c = await cursorAt(); return c.n === c.of; }).toBe(true);
    const panel = page.getByRole("region", { name: "State at the cursor" });
    await panel.getByRole("heading", { name: /^State after event \d+ of \d+$/ }).waitFor();

    // Step, then play a little and pause: the cursor moves and the panel follows it.
    const scrubber = page.getByRole("group", { name: "Scrubber" });
    await scrubber.getByRole("button", { name: "Step back" }).click();
    await expect.poll(async () => { const c = await cursorAt(); return c.of - c.n; }).toBe(1);
    await scrubber.focus();
    await page.keyboard.press("Home");
    await expect.poll(() => cursor.textContent()).toMatch(/^Event 1 of /);
    await page.keyboard.press("Space");
    await scrubber.getByRole("button", { name: "Pause" }).waitFor();
    await expect.poll(cursorEvent, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await page.keyboard.press("Space");
    await scrubber.getByRole("button", { name: "Play" }).waitFor();

    // Jump to the tool call: the cursor names it, the timeline highlights it, the panel shows its state.
    await scrubber.focus();
    await page.keyboard.press("Home");
    await scrubber.getByRole("button", { name: "Next tool call" }).click();
    await expect.poll(() => cursor.textContent()).toContain("tool_call exec_command");
    const n = await cursorEvent();
    const position = / (\d{3}:\d{6}) /.exec((await cursor.textContent()) ?? "")?.[1] ?? "";
    expect(position).not.toBe("");
    await page.locator('[aria-current="step"]').getByText("tool_call", { exact: true }).waitFor();
    await panel.getByRole("heading", { name: `State after event ${n} of`, exact: false }).waitFor();
    await expect.poll(() => panel.textContent()).toContain("printf hi > hello.txt");
    await expect.poll(() => panel.locator('[data-change="added"]').count()).toBeGreaterThan(0);
    await expect.poll(() => panel.getByLabel("Changes since the previous step").textContent()).toMatch(/^\d+ changes? since the previous step$/);
    await shotBothWidths("traces-time-travel", page.getByRole("heading", { name: "Time travel" }));
    await shotBothWidths("traces-time-travel-state", panel);

    // Fork from there: the fork's chat opens, and a message sent there is answered.
    const requestsBefore = h.testkit.requests.length;
    await page.getByRole("button", { name: "Fork from here" }).click();
    await page.waitForURL((url) => url.href !== sourceUrl && /\/chat\/session-/.test(url.pathname));
    const forkUrl = page.url();
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("TIMETRAVEL carry on from the tool call");
    await box.press("Enter");
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText("TIMETRAVEL carry on from the tool call").waitFor();
    await page.getByText("The agent is working…").waitFor({ state: "hidden", timeout: 30_000 });
    await log.getByText("OK", { exact: true }).waitFor();
    const forkRequest = h.testkit.requests.slice(requestsBefore).find((r) => r.toolNames.length > 0);
    expect(forkRequest?.messages.some((m) => m.role === "user" && m.text?.includes("TIMETRAVEL") === true)).toBe(true);
    expect(h.testkit.violations).toEqual([]);

    // The sidebar marks the fork and links it to where it came from.
    const sidebar = page.getByRole("navigation", { name: "Sessions" });
    const origin = sidebar.getByRole("link", { name: `Forked from`, exact: false }).first();
    await origin.waitFor();
    expect(await origin.getAttribute("aria-label")).toMatch(new RegExp(`^Forked from .+ at ${position}$`));
    expect(await origin.getAttribute("href")).toBe(`/chat/${sessionId}`);
    await shotBothWidths("chat-time-travel-fork");
    // At phone width the list is a dialog; the badge is there too.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Sessions", exact: true }).click();
    const sheet = page.getByRole("dialog", { name: "Sessions" });
    await sheet.getByRole("link", { name: "Forked from", exact: false }).first().waitFor();
    await h.shot("sessions-time-travel-fork-phone");
    // Following the origin from the sheet closes it and opens the source session.
    await sheet.getByRole("link", { name: "Forked from", exact: false }).first().click();
    await sheet.waitFor({ state: "detached" });
    await page.waitForURL((url) => url.pathname === `/chat/${sessionId}`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(forkUrl);
    await origin.click();
    await page.waitForURL((url) => url.href !== forkUrl && url.pathname === `/chat/${sessionId}`);
    // Answers the app expects (401 before signing in, 404 for "no goal") are logged by the
    // browser as failed loads; anything else the page threw or logged is a failure.
    expect(h.pageErrors.filter((e) => !e.startsWith("console: Failed to load resource"))).toEqual([]);
  });
});
