/**
 * End to end, in Chromium, against the real server and a testkit model:
 * sign in and replace the initial password; add a model on the Models page pointed at the
 * testkit; chat through a task whose tool call needs approval (always-ask): Allow, then the
 * output and a markdown answer; reload in the middle of a streaming answer and see it go on
 * with nothing missing or doubled; Stop a streaming answer (the row says it was stopped and
 * the composer is free again); the usage page shows the requests and their cost; the
 * traces page lists the session's requests; a new agent gets a skill from the library; a
 * steering message is recalled before the agent reads it; a background server shows up in
 * the session's details panel and is killed there; a subagent's row opens the child's own
 * stream, and the child is listed under the sidebar's "subagents"; the + menu's Goal… adds
 * a budget field (by keyboard); `/goal 500k …` runs a goal the model completes in round 2 (header chip, round banners, the final row, the same
 * after a reload); Fork on the finished goal opens a working copy; a session the CLI ran
 * shows in the list under its prompt and opens with its title, transcript and stats.
 * Last, a figure rather than a check: the time from a streamed delta reaching the page to
 * the frame that shows it, over PAINT_DELTAS deltas (printed, and written to
 * test-artifacts/figures/paint-latency.json; no bound is asserted, a busy machine moves it). Every page is saved as a
 * screenshot at 1280×860 and at 390×844 (a phone), and at phone width no page scrolls
 * sideways.
 *
 * Skips (with the reason) when Chromium is not installed. Steps share one browser and run in
 * order; each waits on what the user would see, never on fixed sleeps.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CLI_PROMPT, GOAL_DONE, GOAL_ROUND_ONE, LONG_LINES, PAINT_DELTAS, SHOTS, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`[web e2e] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const NEW_PASSWORD = "correct-horse-battery";

// On a developer machine a missing browser skips the suite; in CI (.ci/run installs Debian's
// chromium) it is a failure, so a broken install can never pass as green.
describe.runIf(!haveChromium && process.env.CI === "true")("browser availability in CI", () => {
  it("has Chromium", () => {
    expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: .ci/run should have installed it`).toBe(true);
  });
});

describe.skipIf(!haveChromium)("PenguinHarness web app", () => {
  let h: Harness;
  let sessionUrl = "";

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  // A failed step leaves what the page showed and what it logged, for a person to look at.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail" || h === undefined) return;
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60);
    await h.shot(`failed-${name}`).catch(() => undefined);
    if (h.pageErrors.length > 0) console.warn(`[web e2e] page errors so far:\n${h.pageErrors.join("\n")}`);
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
    await dialog.getByRole("button", { name: "Detect", exact: true }).click();
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
    // Wait for the draft screen itself: until it replaces the Models page, a "Model" label
    // there would match first.
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await page.getByLabel("Model", { exact: true }).selectOption({ label: "fake-model (testkit)" });
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
    // Approve by keyboard: Allow is a real button in the tab order; Enter on it decides.
    await allow.focus();
    await page.keyboard.press("Enter");
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

  it("stops a streaming answer with Stop", async () => {
    const { page } = h;
    const box = page.getByRole("combobox", { name: "Message" });
    await expect.poll(() => page.getByText("The agent is working…").count()).toBe(0);
    await box.fill("ABORTTEST: count the steps");
    await box.press("Enter");
    await page.getByText("Step 3.", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await page.getByText(/^(▸ )?Stopped$/).first().waitFor();
    await page.getByText("The agent is working…").waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Send", exact: true }).waitFor();
    expect(await page.getByText("NEVER SHOWN").count()).toBe(0);
    await h.shot("chat-stopped");
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

  it("installs a skill from the library on a new agent", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Agents" }).click();
    await page.getByLabel("New agent id").fill("helper");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL(/\/agents\/helper$/);
    await page.getByRole("tab", { name: "Skills" }).click();
    const installed = page.getByRole("region", { name: "Installed" });
    await installed.getByText("No skills installed.").waitFor();
    const library = page.getByRole("group", { name: "Engineering" });
    await library.getByRole("button", { name: "Install software-engineering" }).click();
    await page.getByText("Installed software-engineering.").waitFor();
    await installed.getByText("software-engineering", { exact: true }).waitFor();
    await library.getByRole("button", { name: "Update software-engineering" }).waitFor();
    expect(existsSync(`${h.root}/default_project/agents/helper/agent_state/skills/software-engineering/SKILL.md`)).toBe(true);
    await h.shot("agents-skills");
  });

  it("recalls a steering message before the agent reads it", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Chat" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await page.getByLabel("Model", { exact: true }).selectOption({ label: "fake-model (testkit)" });
    await page.getByLabel("Approval mode").selectOption("always-ask");
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("Steering test: create hello.txt once more");
    await box.press("Enter");
    await page.waitForURL(/\/chat\/session-/);
    const allow = page.getByRole("button", { name: "Allow" });
    await allow.waitFor();
    await box.fill("Also write a haiku about penguins");
    await box.press("Enter");
    const pending = page.getByRole("list", { name: "Pending messages" });
    await pending.getByText("Also write a haiku about penguins").waitFor();
    await expect.poll(() => box.inputValue()).toBe("");
    await h.shot("chat-steering");
    await pending.getByRole("button", { name: "Recall steering: Also write a haiku about penguins" }).click();
    await pending.waitFor({ state: "detached" });
    await expect.poll(() => box.inputValue()).toBe("Also write a haiku about penguins");
    await box.fill("");
    const before = h.testkit.requests.length;
    await allow.click();
    await page.locator(".markdown table").last().waitFor();
    await page.getByText("The agent is working…").waitFor({ state: "hidden" });
    const later = h.testkit.requests.slice(before).flatMap((r) => r.messages.map((m) => m.text ?? ""));
    expect(later.join("\n")).not.toContain("haiku");
  });

  it("shows a background server in the session details and kills it", async () => {
    const { page } = h;
    const box = page.getByRole("combobox", { name: "Message" });
    await page.getByLabel("Session approval mode").selectOption("allow-all");
    await box.fill("SERVETEST: start the preview server");
    await box.press("Enter");
    await page.getByText("The agent is working…").waitFor({ state: "hidden", timeout: 30_000 });
    await page.getByRole("button", { name: "Details" }).click();
    const details = page.getByRole("region", { name: "Session details" });
    await expect.poll(async () => {
      await details.getByRole("button", { name: "Refresh" }).click();
      return details.getByRole("link", { name: "http://127.0.0.1:4173/" }).count();
    }).toBe(1);
    await details.getByText("Start a preview server").waitFor();
    await h.shot("chat-details");
    await details.getByRole("button", { name: /^Kill p\d+$/ }).click();
    await details.getByRole("button", { name: /^Remove p\d+$/ }).click();
    await details.getByText("No background processes.").waitFor();
    await details.getByRole("button", { name: "Close details" }).click();
  });

  it("opens a subagent's own stream from its row", async () => {
    const { page } = h;
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("DELEGATETEST: let a helper greet me");
    await box.press("Enter");
    const open = page.getByRole("link", { name: "Open stream" }).last();
    await open.waitFor({ timeout: 30_000 });
    await page.getByText("The agent is working…").waitFor({ state: "hidden", timeout: 30_000 });
    const parentUrl = page.url();
    await open.click();
    await page.waitForURL((url) => url.href !== parentUrl && /\/chat\/session-/.test(url.pathname));
    await page.getByText("Hello from the child agent.").waitFor();
    await page.getByText("child task: greet the user").waitFor();
    await h.shot("chat-subagent");
    await page.goto(parentUrl);
    await page.getByText("DELEGATETEST: let a helper greet me").waitFor();
  });

  it("lists the subagent's session under the sidebar's subagents, and opens its stream", async () => {
    const { page } = h;
    const sidebar = page.getByRole("navigation", { name: "Sessions" });
    await sidebar.getByLabel("Show").selectOption("subagent");
    const child = sidebar.getByRole("link", { name: /Subagent [0-9a-f]{8}/ });
    await child.first().waitFor();
    await h.shot("sessions-subagents");
    await child.first().click();
    await page.getByText("Hello from the child agent.").waitFor();
    await sidebar.getByLabel("Show").selectOption("active");
    await expect.poll(() => sidebar.getByRole("link", { name: /Subagent [0-9a-f]{8}/ }).count()).toBe(0);
  });

  it("runs `/goal 500k …` to completion in round 2, and shows the same after a reload", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "New chat" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await page.getByLabel("Model", { exact: true }).selectOption({ label: "fake-model (testkit)" });
    await page.getByLabel("Approval mode").selectOption("allow-all");
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("GOALTEST make the tests pass");
    const plus = page.getByRole("button", { name: "Add an image, a file or a goal" });
    await plus.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("menuitem", { name: "Image…" }).waitFor();
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    const panel = page.getByRole("group", { name: "Goal" });
    await expect.poll(() => panel.getByLabel("Budget").evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("500k");
    await page.getByRole("button", { name: "Start goal" }).waitFor();
    await h.shot("chat-goal-composer");
    await panel.getByRole("button", { name: "Remove goal" }).click();
    await page.getByRole("button", { name: "Send", exact: true }).waitFor();
    await box.fill("/goal 500k GOALTEST make the tests pass");
    await page.getByRole("button", { name: "Start goal" }).waitFor();
    await box.press("Enter");
    await page.waitForURL(/\/chat\/session-/);
    const chip = page.getByRole("status", { name: "Goal progress" });
    await expect.poll(() => chip.textContent(), { timeout: 20_000 }).toMatch(/^Goal: GOALTEST make the tests pass — round 1, used 0 of 500k tokens$/);
    await page.getByRole("group", { name: "Goal · round 1" }).waitFor();
    await h.shot("chat-goal-running");
    const result = page.getByRole("group", { name: "Goal result" });
    await result.waitFor({ timeout: 30_000 });
    await expect.poll(() => result.textContent()).toMatch(/Goal complete · 2 rounds · [\d.]+k? tokens used/);
    expect(await result.getAttribute("data-outcome")).toBe("complete");
    await page.getByText("The agent is working…").waitFor({ state: "hidden" });
    await chip.waitFor({ state: "detached" });
    const round2 = page.getByRole("group", { name: "Goal · round 2" });
    await expect.poll(() => round2.textContent()).toMatch(/used [\d.]+k? of 500k tokens/);
    await page.getByText(GOAL_ROUND_ONE).waitFor();
    await page.getByText("The tests pass now").waitFor();
    expect(await page.getByRole("article", { name: "Tool write_file" }).count()).toBe(1);
    await h.shot("chat-goal");

    await page.reload();
    await page.getByRole("group", { name: "Goal result" }).waitFor();
    expect(await page.getByRole("group", { name: /^Goal · round \d$/ }).count()).toBe(2);
    expect(await page.getByText("GOALTEST make the tests pass", { exact: true }).count()).toBe(1);
    expect(await page.getByText(/Continue working on the objective/).count()).toBe(0);
    expect(await page.getByText(GOAL_DONE.slice(0, 20)).count()).toBe(1);
  });

  it("forks the finished session into a new one that carries on from its last answer", async () => {
    const { page } = h;
    const sourceUrl = page.url();
    const fork = page.getByRole("button", { name: "Fork", exact: true });
    await expect.poll(() => fork.count()).toBe(1);
    await fork.click();
    await page.waitForURL((url) => url.href !== sourceUrl && /\/chat\/session-/.test(url.pathname));
    const title = page.getByRole("heading", { level: 1 });
    await expect.poll(() => title.textContent()).toMatch(/ \(1\)$/);
    await page.getByText("The tests pass now").waitFor();
    await page.getByRole("group", { name: "Goal · round 2" }).waitFor();
    const sidebar = page.getByRole("navigation", { name: "Sessions" });
    await sidebar.getByRole("link", { name: / \(1\)/ }).first().waitFor();
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("FORKTEST: and what next?");
    await box.press("Enter");
    await page.getByText("FORKTEST: and what next?").waitFor();
    await page.getByText("The agent is working…").waitFor({ state: "hidden", timeout: 30_000 });
    await expect.poll(() => page.getByRole("button", { name: "Fork", exact: true }).count()).toBe(1);
    expect(await page.getByRole("status", { name: "Goal progress" }).count()).toBe(0);
    await h.shot("chat-fork");
    const sent = h.testkit.requests.filter((r) => r.toolNames.length > 0).at(-1)?.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "") ?? [];
    expect(sent.some((t) => t.includes("GOALTEST make the tests pass"))).toBe(true);
    expect(sent.at(-1)).toContain("FORKTEST");
  });

  it("shows a session the CLI ran like any other: title, transcript and stats", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Chat", exact: true }).click();
    const sidebar = page.getByRole("navigation", { name: "Sessions" });
    const cli = sidebar.getByRole("link", { name: new RegExp(CLI_PROMPT) });
    await cli.waitFor();
    expect(await sidebar.getByText("Untitled session").count()).toBe(0);
    await cli.click();
    await page.waitForURL(/\/chat\/session-/);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(CLI_PROMPT);
    await page.getByRole("log", { name: "Conversation" }).getByText(CLI_PROMPT).waitFor();
    await page.getByRole("log", { name: "Conversation" }).getByText("OK", { exact: true }).waitFor();
    await page.getByLabel("Task statistics").first().waitFor();
    await page.getByText("testkit/cli-model").waitFor();
    await h.shot("chat-cli-session");
  });

  it("renders the other pages and a 390 px phone layout", async () => {
    const { page } = h;
    await page.getByRole("link", { name: "Agents" }).click();
    await page.getByRole("tab", { name: "Overview" }).click();
    await page.getByRole("link", { name: "Export snapshot" }).waitFor();
    await h.shot("agents-overview");
    await page.getByRole("tab", { name: "Tools & MCP" }).click();
    await page.getByRole("cell", { name: "exec_command", exact: true }).waitFor();
    await h.shot("agents-tools");
    await page.getByRole("tab", { name: "Memory" }).click();
    await page.getByRole("region", { name: "Memory scopes" }).waitFor();
    await h.shot("agents-memory");
    await page.getByRole("tab", { name: "Prompt & runtime" }).click();
    await page.getByLabel(/system_config\.yaml/).waitFor();
    await h.shot("agents");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await h.shot("settings");
    // The project's approval mode for new sessions: read-only until the owner picks another, which the new-session form then offers.
    const newSessionMode = page.getByLabel("Approval mode of new sessions");
    expect(await newSessionMode.inputValue()).toBe("read-only");
    await newSessionMode.selectOption("always-ask");
    await page.getByText("Saved: new sessions of this project start with this mode.").waitFor();
    await page.getByRole("link", { name: "Chat" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await expect.poll(() => page.getByLabel("Approval mode", { exact: true }).inputValue()).toBe("always-ask");
    await page.getByRole("link", { name: "Settings" }).click();
    await expect.poll(() => page.getByLabel("Approval mode of new sessions").inputValue()).toBe("always-ask");
    await page.getByLabel("Approval mode of new sessions").selectOption("read-only");
    await page.getByText("Saved: new sessions of this project start with this mode.").waitFor();
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

  it("saves every page at phone width, none of them scrolling sideways", async () => {
    const { page } = h;
    await page.setViewportSize({ width: 390, height: 844 });
    const noSideways = async (name: string) => {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
      await h.shot(`${name}-phone`);
    };
    await page.goto(`${h.server.url}/chat`);
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await noSideways("chat-draft");
    await page.goto(sessionUrl);
    await page.getByText("THE END").waitFor();
    await noSideways("chat");
    await page.goto(`${h.server.url}/models`);
    await page.getByText("fake-model").first().waitFor();
    await noSideways("models");
    await page.goto(`${h.server.url}/agents`);
    await page.getByRole("link", { name: "Export snapshot" }).waitFor();
    await noSideways("agents");
    await page.goto(`${h.server.url}/usage`);
    await page.locator(".uplot").first().waitFor();
    await noSideways("usage");
    await page.goto(`${h.server.url}/traces`);
    await page.getByRole("region", { name: "Session" }).waitFor();
    await noSideways("traces");
    await page.goto(`${h.server.url}/settings`);
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await noSideways("settings");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await noSideways("login");
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("measures the time from a streamed delta reaching the page to the frame that shows it", async () => {
    const { page } = h;
    // Arrivals: the session stream's bytes as the page reads them (fetch wrapped before the
    // app loads), counted in characters of streamed text. Shown: after each DOM change, the
    // next animation frame, with the streaming row's text length then.
    await page.addInitScript(() => {
      const w = window as unknown as { __arrived: [number, number][]; __shown: [number, number][] };
      w.__arrived = [];
      w.__shown = [];
      let chars = 0;
      const original = window.fetch.bind(window);
      window.fetch = async (input, init) => {
        const res = await original(input, init);
        if (!String(input instanceof Request ? input.url : input).endsWith("/stream") || res.body === null) return res;
        const [mine, theirs] = res.body.tee();
        void (async () => {
          const reader = mine.getReader();
          const decoder = new TextDecoder();
          let buffer = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            const at = performance.now();
            buffer += decoder.decode(value, { stream: true });
            const frames = buffer.split("\n\n");
            buffer = frames.pop() ?? "";
            for (const frame of frames) {
              const data = frame.split("\n").find((l) => l.startsWith("data:"));
              if (data === undefined) continue;
              try {
                const m = JSON.parse(data.slice(5)) as { payload?: { type?: string; text?: string } };
                // The x's only: the shown side counts those, and the warm-up's answer has none.
                const xs = m.payload?.type === "partial_text" && typeof m.payload.text === "string" ? m.payload.text.replace(/[^x]/g, "").length : 0;
                if (xs > 0) {
                  chars += xs;
                  w.__arrived.push([chars, at]);
                }
              } catch {
                // not a message frame
              }
            }
          }
        })();
        return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
      };
      new MutationObserver(() => {
        requestAnimationFrame(() => {
          const rows = document.querySelectorAll(".markdown");
          const text = rows[rows.length - 1]?.textContent ?? "";
          w.__shown.push([text.replace(/[^x]/g, "").length, performance.now()]);
        });
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(`${h.server.url}/chat`);
    // The phone step ended signed out.
    await page.getByLabel("User id").fill("admin");
    await page.getByLabel("Password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await page.getByLabel("Model", { exact: true }).selectOption({ label: "fake-model (testkit)" });
    await page.getByLabel("Approval mode").selectOption("allow-all");
    const box = page.getByRole("combobox", { name: "Message" });
    // A short task first, and the paint test as the next task of the same session: its deltas
    // then all come over a stream the page already has open. Sent as a session's first task,
    // the whole answer could stream before the page was listening (it did, on a loaded
    // machine), and then arrive as one finished record with no delta to time.
    await box.fill("warm up the stream");
    await box.press("Enter");
    await page.waitForURL(/\/chat\/session-/);
    await expect.poll(() => page.evaluate(() => [...document.querySelectorAll(".markdown")].some((row) => row.textContent?.trim() === "OK")), { timeout: 30_000 }).toBe(true);
    await page.getByRole("button", { name: "Send", exact: true }).waitFor();
    await box.fill("PAINTTEST stream the x's");
    await box.press("Enter");
    await expect.poll(() => page.evaluate(() => (window as unknown as { __shown: [number, number][] }).__shown.some(([n]) => n >= 10_000)), { timeout: 90_000 }).toBe(true);
    const { arrived, shown } = await page.evaluate(() => {
      const w = window as unknown as { __arrived: [number, number][]; __shown: [number, number][] };
      return { arrived: w.__arrived, shown: w.__shown };
    });
    // Each delta's latency: from its arrival to the first frame whose row holds its text.
    const latencies: number[] = [];
    let s = 0;
    for (const [chars, at] of arrived) {
      while (s < shown.length && ((shown[s]?.[0] ?? 0) < chars || (shown[s]?.[1] ?? 0) < at)) s += 1;
      const frame = shown[s];
      if (frame !== undefined) latencies.push(frame[1] - at);
    }
    latencies.sort((a, b) => a - b);
    const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    // The frames in which the answer grew: with rendering coalesced per animation frame they
    // are far fewer than the deltas. The load average says how busy the machine was.
    const framesShowingDeltas = shown.filter(([n], i) => n > (shown[i - 1]?.[0] ?? 0)).length;
    const figure = {
      deltas: arrived.length,
      measured: latencies.length,
      p50Ms: Math.round(pick(0.5) * 10) / 10,
      p99Ms: Math.round(pick(0.99) * 10) / 10,
      framesShowingDeltas,
      loadAverage1m: Math.round(loadavg()[0]! * 10) / 10,
    };
    console.log(
      `[web e2e] delta to paint over ${figure.measured} of ${PAINT_DELTAS} streamed deltas: p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms; ` +
        `the answer grew in ${framesShowingDeltas} frames; load average ${figure.loadAverage1m}`,
    );
    // In a folder of its own: the CI summary reads every JSON file of test-artifacts/ as a test report.
    const figures = join(SHOTS, "..", "figures");
    mkdirSync(figures, { recursive: true });
    writeFileSync(join(figures, "paint-latency.json"), `${JSON.stringify(figure, null, 2)}\n`);
    expect(latencies.length).toBeGreaterThan(0);
  });
});
