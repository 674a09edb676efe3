/**
 * Live read models in the browser (issue 28): with the dashboard open, a session run by
 * `penguin run` (the built CLI, same data root, the testkit's scripted model) appears in the
 * sidebar's list, and the Usage page's request count grows while it stays open, from the
 * `session_row` and `usage_totals` rows of `/api/events`. The page's requests are counted:
 * neither the session list nor the usage report is fetched again.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgent, writeProjectConfig } from "@penguin/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
const CLI_MAIN = fileURLToPath(new URL("../../cli/bundle/main.js", import.meta.url));
const NEW_PASSWORD = "live-rows-horse-battery";

/** `penguin run --json -m prompt` as a terminal runs it; answers the new session's id. */
function penguinRun(root: string, prompt: string): Promise<string> {
  const workspace = mkdtempSync(join(tmpdir(), "penguin-e2e-live-"));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, "run", "--json", "-m", prompt, "--workspace", workspace], { env: { PATH: process.env.PATH, HOME: process.env.HOME, PENGUIN_HOME: root }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    child.once("exit", (code) => {
      rmSync(workspace, { recursive: true, force: true });
      const meta = out.split("\n").find((l) => l.includes('"session_meta"'));
      if (code !== 0 || meta === undefined) reject(new Error(`penguin run exited ${code}: ${err}`));
      else resolve(JSON.parse(meta).payload.session_id as string);
    });
  });
}

describe.skipIf(!haveChromium || !existsSync(CLI_MAIN))("live read models in the web dashboard", () => {
  let h: Harness;
  const requests: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    // The CLI's model: the testkit, in the project's config on the shared data root.
    const agent = await createAgent({ root: h.root, env: {} });
    writeProjectConfig(agent.paths.projectConfig, {
      default_model: { provider: "testkit", model_id: "cli-model" },
      models: [{ provider: "testkit", model_id: "cli-model", client_type: "openai-chat", base_url: h.testkit.baseUrl("openai-chat"), api_key: "sk-testkit-cli-0003" }],
    });
    h.page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  });

  afterAll(async () => {
    await h?.close();
  });

  it("a CLI session appears in the list and the Usage totals grow, with no list or usage refetch", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await page.getByLabel("User id").fill("admin");
    await page.getByLabel("Password").fill(h.initialPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Current password").fill(h.initialPassword);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set password and continue" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    const sidebar = page.getByRole("navigation", { name: "Sessions" });
    await sidebar.locator('a[href^="/chat/session-"]').first().waitFor();
    const lists = () => requests.filter((p) => /\/sessions$/.test(p)).length;
    const listsBefore = lists();

    const first = await penguinRun(h.root, "LIVETEST one from the shell");
    await sidebar.locator(`a[href="/chat/${encodeURIComponent(first)}"]`).waitFor();
    expect(lists()).toBe(listsBefore);

    await page.getByRole("link", { name: "Usage" }).click();
    const summary = page.getByRole("region", { name: "Summary" });
    const requestsCard = async () => Number((await summary.getByText(/^\d+$/).first().textContent()) ?? "0");
    await expect.poll(requestsCard).toBeGreaterThan(0);
    const shown = await requestsCard();
    const reports = () => requests.filter((p) => /\/usage$/.test(p)).length;
    const reportsBefore = reports();

    await penguinRun(h.root, "LIVETEST two from the shell");
    await expect.poll(requestsCard, { timeout: 30_000 }).toBeGreaterThan(shown);
    expect(reports()).toBe(reportsBefore);
    // No uncaught error from applying the rows (failed loads, such as the 401 before signing in, are the server's answers).
    const uncaught = h.pageErrors.filter((e) => !e.startsWith("console: Failed to load resource"));
    expect(uncaught, uncaught.join("\n")).toEqual([]);
  });
});
