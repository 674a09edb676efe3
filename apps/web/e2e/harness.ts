/**
 * The e2e harness: a fresh data root, a testkit model server answering by request content,
 * the real PenguinHarness server serving the built SPA, and Debian's Chromium (headless,
 * a new empty profile) driven by playwright-core. Screenshots go to
 * test-artifacts/screenshots/ at the repository root.
 *
 * Before the server starts, one session is run through the SDK alone, as the CLI runs it
 * (its own model entry, written into the project config for that run and then taken out
 * again, so the web steps start from an empty model table): the web must show it like any
 * other, under a title taken from its prompt (CLI_PROMPT).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { createAgent, writeProjectConfig } from "@penguin/core";
import { startServer, type RunningServer, type StartServerOptions } from "@penguin/server";
import { findMarkers } from "@penguin/omnimessage";
import { startTestkit, type RecordedRequest, type ScriptedTurn, type Testkit } from "@penguin/testkit";
import { goalBlockOf } from "../src/lib/stream/goal";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

const webDir = fileURLToPath(new URL("../dist", import.meta.url));
export const SHOTS = fileURLToPath(new URL("../../../test-artifacts/screenshots", import.meta.url));

/** The prompt of the session run the CLI's way before the server starts. */
export const CLI_PROMPT = "CLITEST hello from the shell";

export const FINAL_ANSWER = "Done: **hello.txt** now contains `hi`.\n\n| file | size |\n| --- | --- |\n| hello.txt | 2 |";
export const LONG_LINES = 40;
/** How many text deltas the paint-latency step streams. */
export const PAINT_DELTAS = 10_000;

/**
 * What the fake model answers, decided per request (so probes, connection tests and title
 * generation never shift a fixed script): a request without tools gets a short text; a
 * request whose last message is a tool result gets the final markdown answer; a prompt
 * mentioning RELOADTEST streams a long, slow text (time to reload mid-stream); ABORTTEST
 * streams a longer one still (time to press Stop before it ends); PAINTTEST streams
 * PAINT_DELTAS one-character deltas with no pause (the paint-latency figure); a prompt
 * mentioning hello.txt gets a tool call; SERVETEST starts a background command that prints
 * a local URL; DELEGATETEST runs a subagent, whose own prompt ("child task") gets a short
 * answer; GOALTEST is a goal the model completes in round 2 (goalTurn); REWINDTEST writes a
 * file and then edits it (rewindTurn).
 */
export function answer(req: RecordedRequest): ScriptedTurn {
  if (req.toolNames.length === 0) return { text: "Hello file", usage: { input: 40, output: 3 } };
  const last = req.messages[req.messages.length - 1];
  const prompt = [...req.messages].reverse().find((m) => m.role === "user" && m.kind === "text")?.text ?? "";
  if (prompt.includes("GOALTEST")) return goalTurn(req, last?.kind === "tool_result");
  if (prompt.includes("REWINDTEST")) return rewindTurn(req);
  if (last?.kind === "tool_result") return { text: FINAL_ANSWER, usage: { input: 1600, cached: 1200, output: 42 } };
  if (prompt.includes("RELOADTEST")) {
    const body = Array.from({ length: LONG_LINES }, (_, i) => `Line ${i + 1}.`).join("\n");
    return { text: `${body}\nTHE END`, chunkSize: 6, delayMs: 90, usage: { input: 1800, cached: 1500, output: 120 } };
  }
  if (prompt.includes("PAINTTEST")) return { text: "x".repeat(PAINT_DELTAS), chunkSize: 1, usage: { input: 100, output: PAINT_DELTAS } };
  if (prompt.includes("ABORTTEST")) {
    const body = Array.from({ length: 400 }, (_, i) => `Step ${i + 1}.`).join("\n");
    return { text: `${body}\nNEVER SHOWN`, chunkSize: 6, delayMs: 90, usage: { input: 1800, cached: 1500, output: 300 } };
  }
  if (prompt.includes("child task")) return { text: "Hello from the child agent.", usage: { input: 300, output: 8 } };
  if (prompt.includes("SERVETEST")) {
    return {
      toolCalls: [{ name: "exec_command", arguments: { cmd: "echo 'Serving on http://127.0.0.1:4173/'; exec sleep 600", run_in_background: true, description: "Start a preview server" } }],
      usage: { input: 900, output: 20 },
    };
  }
  if (prompt.includes("DELEGATETEST")) {
    return { toolCalls: [{ name: "run_subagent", arguments: { prompt: "child task: greet the user", description: "Delegate the greeting" } }], usage: { input: 900, output: 20 } };
  }
  if (prompt.includes("hello.txt")) {
    return {
      thinking: "I will create the file with a shell command.",
      toolCalls: [{ name: "exec_command", arguments: { cmd: "printf hi > hello.txt", description: "Create hello.txt" } }],
      usage: { input: 1400, cached: 0, output: 30 },
    };
  }
  return { text: "OK", usage: { input: 50, output: 1 } };
}

export const GOAL_ROUND_ONE = "Round one: I ran the tests, read the failure and wrote PLAN.md.";
export const GOAL_DONE = "The tests pass now, so GOAL.yaml says `status: complete`.";

/**
 * A goal's turns (the prompt, and later rounds' restated objective, mention GOALTEST): round
 * 1 answers slowly (time to see the header chip), round 2 writes `status: complete` into the
 * goal file named in the newest `[goal]` block, then answers once the write is back.
 */
function goalTurn(req: RecordedRequest, afterTool: boolean): ScriptedTurn {
  if (afterTool) return { text: GOAL_DONE, usage: { input: 2400, cached: 2000, output: 18 } };
  const blocks = req.messages.flatMap((m) => (m.role === "user" && m.text !== undefined ? findMarkers(m.text).filter((b) => b.tag === "goal") : []));
  const round = goalBlockOf(blocks.at(-1)?.body ?? "");
  if (round.round === 1 || round.goalFile === undefined) return { text: GOAL_ROUND_ONE, chunkSize: 3, delayMs: 70, usage: { input: 1500, output: 20 } };
  return {
    toolCalls: [{ name: "write_file", arguments: { file_path: round.goalFile, content: "objective: GOALTEST make the tests pass\nstatus: complete\n" } }],
    usage: { input: 2000, cached: 1500, output: 25 },
  };
}

export const REWIND_FILE = "rewind-notes.txt";

/**
 * The workspace-rewind session (issue 29): write REWIND_FILE, then edit it, then answer; the
 * step is the number of tool results the request carries.
 */
function rewindTurn(req: RecordedRequest): ScriptedTurn {
  const step = req.messages.filter((m) => m.kind === "tool_result").length;
  if (step === 0) return { toolCalls: [{ name: "write_file", arguments: { file_path: REWIND_FILE, content: "first version\nkeep this line\n" } }], usage: { input: 900, output: 20 } };
  if (step === 1) return { toolCalls: [{ name: "edit_file", arguments: { file_path: REWIND_FILE, old_string: "first version", new_string: "second version" } }], usage: { input: 1000, output: 20 } };
  return { text: "REWIND DONE", usage: { input: 1100, output: 3 } };
}

/** One session run through the SDK with no server, as `penguin` in a terminal does. */
async function runCliSession(root: string, testkit: Testkit): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), "penguin-e2e-cli-"));
  const agent = await createAgent({ root, env: {} });
  const configFile = agent.paths.projectConfig;
  const before = existsSync(configFile) ? readFileSync(configFile, "utf8") : undefined;
  const entry = { provider: "testkit", model_id: "cli-model", client_type: "openai-chat" as const, base_url: testkit.baseUrl("openai-chat"), api_key: "sk-testkit-cli-0002" };
  writeProjectConfig(configFile, { default_model: { provider: entry.provider, model_id: entry.model_id }, models: [entry] });
  const session = await agent.createSession({ workspaceDir: workspace });
  for await (const _m of session.run(CLI_PROMPT)) void _m;
  await session.dispose();
  if (before === undefined) rmSync(configFile, { force: true });
  else writeFileSync(configFile, before);
  rmSync(workspace, { recursive: true, force: true });
}

export interface Harness {
  root: string;
  testkit: Testkit;
  server: RunningServer;
  context: BrowserContext;
  page: Page;
  initialPassword: string;
  /** Uncaught errors and console errors of the page, in order (a green run has none). */
  pageErrors: string[];
  shot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Server app options (a sandbox whose bwrap is missing, say); default: the server's own defaults. */
  app?: StartServerOptions["app"];
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  if (!existsSync(join(webDir, "index.html"))) throw new Error(`the SPA is not built (${webDir}/index.html missing): run \`npm run -w @penguin/web build\` first`);
  const root = mkdtempSync(join(tmpdir(), "penguin-e2e-"));
  const profile = mkdtempSync(join(tmpdir(), "penguin-e2e-chromium-"));
  mkdirSync(SHOTS, { recursive: true });
  const testkit = await startTestkit();
  testkit.enqueue(...Array.from({ length: 200 }, () => answer));
  await runCliSession(root, testkit);
  const server = await startServer({ root, port: 0, webDir, env: { ...process.env, PENGUIN_HOME: root }, out: () => undefined, ...(options.app === undefined ? {} : { app: options.app }) });
  const initialPassword = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 860 },
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => {
    pageErrors.push(`${e.name}: ${e.message}\n${e.stack ?? ""}`);
    console.warn(`[web e2e] page error: ${e.message}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`console: ${m.text()}`);
  });
  return {
    root,
    testkit,
    server,
    context,
    page,
    initialPassword,
    pageErrors,
    async shot(name, p = page) {
      const path = join(SHOTS, `${name}.png`);
      await p.screenshot({ path, fullPage: false });
      return path;
    },
    async close() {
      await context.close().catch(() => undefined);
      await server.close().catch(() => undefined);
      await testkit.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The first steps the time-travel and sandbox suites share, as a user takes them: sign in as
 * the admin with the initial password and choose `newPassword`; add the testkit as a custom
 * model (`apiKey`) and make it the default; on the Chat page send the scripted task under
 * allow-all, and wait until the agent has answered it. Returns the new session's id.
 */
export async function signInAndRunTheScriptedTask(h: Harness, options: { newPassword: string; apiKey: string }): Promise<string> {
  const { page } = h;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${h.server.url}/`);
  await page.getByLabel("User id").fill("admin");
  await page.getByLabel("Password").fill(h.initialPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Current password").fill(h.initialPassword);
  await page.getByLabel("New password", { exact: true }).fill(options.newPassword);
  await page.getByLabel("Repeat the new password").fill(options.newPassword);
  await page.getByRole("button", { name: "Set password and continue" }).click();
  await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();

  await page.getByRole("link", { name: "Models" }).click();
  await page.getByRole("button", { name: "Add model" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a model" });
  await dialog.getByLabel("Custom endpoint").check();
  await dialog.getByLabel("Base URL").fill(h.testkit.baseUrl("openai-chat"));
  await dialog.getByRole("button", { name: "Detect", exact: true }).click();
  await dialog.getByText(/^Detected /).waitFor();
  await dialog.getByLabel("Provider", { exact: true }).fill("testkit");
  await dialog.getByLabel("Model id").fill("fake-model");
  await dialog.getByLabel("API key").fill(options.apiKey);
  await dialog.getByRole("button", { name: "Save model" }).click();
  await dialog.waitFor({ state: "detached" });
  const defaultButton = page.getByRole("button", { name: "Make fake-model the default" });
  if (await defaultButton.isVisible()) await defaultButton.click();

  await page.getByRole("link", { name: "Chat" }).click();
  await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
  await page.getByLabel("Model", { exact: true }).selectOption({ label: "fake-model (testkit)" });
  await page.getByLabel("Approval mode").selectOption("allow-all");
  const box = page.getByRole("combobox", { name: "Message" });
  await box.fill("Please create hello.txt containing hi");
  await box.press("Enter");
  await page.waitForURL(/\/chat\/session-/);
  await page.locator(".markdown table").waitFor();
  await page.getByText("The agent is working…").waitFor({ state: "hidden", timeout: 30_000 });
  return decodeURIComponent(page.url().split("/chat/")[1] ?? "");
}
