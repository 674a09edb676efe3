/**
 * `/api/events` across a server restart, in the browser (issue 28): with the dashboard open,
 * the server stops, `penguin run` (the built CLI, same data root, the testkit's scripted model)
 * runs a session while no server is up, and a server starts again on the same port and root.
 * The page reconnects with its `Last-Event-ID` (a position in `<root>/read-model-feed.jsonl`,
 * which survives the restart) and gets the rows it missed: the new session appears in the
 * sidebar, and on the Usage page the request count grows, without a page reload and without
 * fetching the list or the usage report again. A marker set on `window` before the restart
 * shows the page was not reloaded.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgent, writeProjectConfig } from "@penguin/core";
import { startServer, type RunningServer } from "@penguin/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
const CLI_MAIN = fileURLToPath(new URL("../../cli/bundle/main.js", import.meta.url));
const WEB_DIR = fileURLToPath(new URL("../dist", import.meta.url));
const NEW_PASSWORD = "restart-rows-horse-battery";
/** The SSE back-off is at most 15 s, and the restarted server first catches its projections up. */
const AFTER_RESTART = { timeout: 60_000 };

/** `penguin run --json -m prompt` as a terminal runs it; answers the new session's id. */
function penguinRun(root: string, prompt: string): Promise<string> {
  const workspace = mkdtempSync(join(tmpdir(), "penguin-e2e-restart-"));
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

describe.skipIf(!haveChromium || !existsSync(CLI_MAIN))("/api/events across a server restart", () => {
  let h: Harness;
  /** The server the page talks to now (the harness's first one, then each restarted one). */
  let server: RunningServer;
  const requests: string[] = [];

  /** Stops the server, runs `whileDown` with no server up, and starts one on the same port and root. */
  async function restartAround(whileDown: () => Promise<void>): Promise<void> {
    const port = Number(new URL(server.url).port);
    await server.close();
    await whileDown();
    server = await startServer({ root: h.root, port, webDir: WEB_DIR, env: { ...process.env, PENGUIN_HOME: h.root }, out: () => undefined });
  }

  beforeAll(async () => {
    h = await startHarness();
    server = h.server;
    const agent = await createAgent({ root: h.root, env: {} });
    writeProjectConfig(agent.paths.projectConfig, {
      default_model: { provider: "testkit", model_id: "cli-model" },
      models: [{ provider: "testkit", model_id: "cli-model", client_type: "openai-chat", base_url: h.testkit.baseUrl("openai-chat"), api_key: "sk-testkit-cli-0004" }],
    });
    h.page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  });

  afterAll(async () => {
    if (server !== h?.server) await server?.close().catch(() => undefined);
    await h?.close();
  });

  it("a reconnect with Last-Event-ID after a restart brings the list and the usage rows made while the server was down", async () => {
    const { page } = h;
    await page.goto(`${server.url}/`);
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
    // A row the server folds while the page is open gives the stream an id to come back with.
    const warmUp = await penguinRun(h.root, "RESTARTTEST before the restart");
    await sidebar.locator(`a[href="/chat/${encodeURIComponent(warmUp)}"]`).waitFor();
    await page.evaluate(() => ((window as unknown as { restartMarker: number }).restartMarker = 1));
    const lists = () => requests.filter((p) => /\/sessions$/.test(p)).length;
    const listsBefore = lists();

    // The list: a session run while no server is up.
    let whileDown = "";
    await restartAround(async () => {
      whileDown = await penguinRun(h.root, "RESTARTTEST while the server is down");
    });
    await expect.poll(() => sidebar.locator(`a[href="/chat/${encodeURIComponent(whileDown)}"]`).count(), AFTER_RESTART).toBe(1);
    expect(lists()).toBe(listsBefore);

    // The Usage page: its request count grows by the requests made while the server was down.
    await page.getByRole("link", { name: "Usage" }).click();
    const summary = page.getByRole("region", { name: "Summary" });
    const requestsCard = async () => Number((await summary.getByText(/^\d+$/).first().textContent()) ?? "0");
    await expect.poll(requestsCard).toBeGreaterThan(0);
    // Settled: the report and every row the stream has sent so far are in.
    await expect.poll(requestsCard).toBe(await requestsCard());
    const shown = await requestsCard();
    const reports = () => requests.filter((p) => /\/usage$/.test(p)).length;
    const reportsBefore = reports();
    await restartAround(async () => {
      await penguinRun(h.root, "RESTARTTEST usage while the server is down");
    });
    await expect.poll(requestsCard, AFTER_RESTART).toBeGreaterThan(shown);
    expect(reports()).toBe(reportsBefore);

    // Never reloaded: the marker set before the first restart is still there.
    expect(await page.evaluate(() => (window as unknown as { restartMarker?: number }).restartMarker)).toBe(1);
    const uncaught = h.pageErrors.filter((e) => !e.startsWith("console: Failed to load resource"));
    expect(uncaught, uncaught.join("\n")).toEqual([]);
  });
});
