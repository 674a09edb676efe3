/**
 * End to end, in Chromium, against the real server and a testkit model:
 * sign in and replace the initial password; add a model on the Models page pointed at the
 * testkit; chat through a task whose tool call needs approval (always-ask): Allow, then the
 * output and a markdown answer; reload in the middle of a streaming answer and see it go on
 * with nothing missing or doubled; the usage page shows the requests and their cost; the
 * traces page lists the session's requests. Each main page is saved as a screenshot.
 *
 * Skips (with the reason) when Chromium is not installed. Steps share one browser and run in
 * order; each waits on what the user would see, never on fixed sleeps.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, LONG_LINES, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`[web e2e] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const NEW_PASSWORD = "correct-horse-battery";

describe.skipIf(!haveChromium)("PenguinHarness web app", () => {
  let h: Harness;
  let sessionUrl = "";

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it("signs in and asks for a new password the first time", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await page.getByLabel("User id").fill("admin");
    await page.getByLabel("Password").fill(h.initialPassword);
    await h.shot("login");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.getByLabel("Current password").fill(h.initialPassword);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await h.shot("initial-password");
    await page.getByRole("button", { name: "Set password and continue" }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    expect(existsSync(`${h.root}/initial-admin-password`)).toBe(false);
  });

  it("adds a model on the Models page, pointed at the testkit", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Models" }).click();
    await page.getByRole("button", { name: "Add model" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a model" });
    await dialog.getByLabel("Custom endpoint").check();
    await dialog.getByLabel("Base URL").fill(h.testkit.baseUrl("openai-chat"));
    await dialog.getByRole("button", { name: "Detect" }).click();
    await dialog.getByText(/^Detected /).waitFor();
    await dialog.getByLabel("Provider", { exact: true }).fill("testkit");
    await dialog.getByLabel("Model id").fill("fake-model");
    await dialog.getByLabel("API key").fill("sk-testkit-key-0001");
    await dialog.getByLabel("Cached input", { exact: true }).fill("0.5");
    await dialog.getByLabel("Uncached input", { exact: true }).fill("2");
    await dialog.getByLabel("Output", { exact: true }).fill("8");
    await h.shot("models-add");
    await dialog.getByRole("button", { name: "Save model" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByText("fake-model").first().waitFor();
    const defaultButton = page.getByRole("button", { name: "Make fake-model the default" });
    if (await defaultButton.isVisible()) await defaultButton.click();
    await page.getByText("default", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Test fake-model", exact: true }).click();
    await page.getByText(/Connection OK/).waitFor();
    await expect.poll(() => page.content()).not.toContain("sk-testkit-key-0001");
    await h.shot("models");
  });

  it("chats through a tool call under always-ask: Allow, output, markdown answer", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Chat" }).click();
    await page.getByLabel("Model").selectOption({ label: "fake-model (testkit)" });
    await page.getByLabel("Approval mode").selectOption("always-ask");
    await h.shot("chat-draft");
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("Please create hello.txt containing hi");
    await box.press("Enter");
    await page.waitForURL(/\/chat\/session-/);
    sessionUrl = page.url();
    const allow = page.getByRole("button", { name: "Allow" });
    await allow.waitFor();
    await page.getByText("printf hi > hello.txt").first().waitFor();
    await h.shot("chat-approval");
    await allow.click();
    await page.locator(".markdown table").waitFor();
    await expect.poll(() => page.locator(".markdown strong", { hasText: "hello.txt" }).count()).toBeGreaterThan(0);
    await page.getByText("done", { exact: true }).waitFor();
    await page.getByRole("button", { name: /Output/ }).first().click();
    await page.getByLabel("Tool output").waitFor();
    await page.getByLabel("Task statistics").first().waitFor();
    await expect.poll(() => page.getByLabel("Task statistics").first().textContent()).toMatch(/tokens .* tok\/s .* \$/);
    await h.shot("chat");
  });

  it("keeps streaming after a reload mid-answer, with nothing missing or doubled", async () => {
    const { page } = h;
    const box = page.getByRole("combobox", { name: "Message" });
    await expect.poll(() => box.isEnabled()).toBe(true);
    await box.fill("RELOADTEST: write the numbered lines");
    await box.press("Enter");
    await page.getByText("Line 5.", { exact: false }).waitFor();
    await page.reload();
    await page.getByText("THE END").waitFor({ timeout: 60_000 });
    const text = (await page.locator(".markdown").last().textContent()) ?? "";
    for (let i = 1; i <= LONG_LINES; i++) expect(text.split(`Line ${i}.`).length - 1, `Line ${i}.`).toBe(1);
    expect(page.url()).toBe(sessionUrl);
    await page.getByText("The agent is working…").waitFor({ state: "hidden" });
    expect(await page.getByRole("article", { name: "Tool exec_command" }).count()).toBe(1);
    expect(await page.getByText("RELOADTEST: write the numbered lines").count()).toBe(1);
    expect(await page.getByText("Please create hello.txt containing hi").count()).toBe(1);
    await h.shot("chat-after-reload");
  });

  it("shows the requests and their cost on the usage page", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Usage" }).click();
    const summary = page.getByRole("region", { name: "Summary" });
    await expect.poll(async () => Number((await summary.getByText(/^\d+$/).first().textContent()) ?? "0")).toBeGreaterThanOrEqual(3);
    await expect.poll(async () => (await summary.textContent()) ?? "").toMatch(/Cost\$0\.\d*[1-9]/);
    await page.locator(".uplot").first().waitFor();
    await h.shot("usage");
  });

  it("lists the session's requests on the traces page", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Traces" }).click();
    const sessionId = decodeURIComponent(sessionUrl.split("/chat/")[1] ?? "");
    await page.getByRole("button", { name: sessionId.replace(/^session-\d{4}-\d{2}-\d{2}-/, "") }).click();
    await page.getByRole("heading", { name: /Timeline/ }).waitFor();
    const requests = page.getByRole("table").filter({ has: page.getByText("Context") });
    await expect.poll(() => requests.locator("tbody tr").count()).toBeGreaterThanOrEqual(3);
    await page.getByRole("link", { name: "Download JSONL" }).waitFor();
    await h.shot("traces");
  });

  it("renders the other pages and a 390 px phone layout", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Agents" }).click();
    await page.getByLabel(/system_config\.yaml/).waitFor();
    await h.shot("agents");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await h.shot("settings");
    await page.getByLabel("Dark").check();
    await page.goto(sessionUrl);
    await page.getByText("THE END").waitFor();
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
    await h.shot("chat-dark");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByLabel("Light").check();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(sessionUrl);
    await page.getByText("THE END").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await h.shot("chat-mobile");
    await page.getByRole("button", { name: "Sessions", exact: true }).click();
    await page.getByRole("dialog", { name: "Sessions" }).waitFor();
    await h.shot("sessions-mobile");
  });
});
