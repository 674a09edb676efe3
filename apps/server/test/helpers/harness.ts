// Server test harness: a real testkit model, a real data root in a temp dir whose
// default_project has a model entry pointing at the testkit, and the server app built on it
// with injected clock, ticker and reconnect sleep, listening on a real socket on 127.0.0.1.
// Tests talk to it through ApiClient (or `request` for a raw URL, any host name kept as the
// Host header).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectPaths, writeProjectConfig, type ModelEntry } from "@penguin/core";
import { startTestkit, type ScriptStep, type Testkit } from "@penguin/testkit";
import { createServerApp, type ServerApp, type ServerAppOptions } from "../../src/app.js";
import { ManualTicker } from "../../src/runtime/clock.js";
import { ApiClient } from "./client.js";
import { listenOnLoopback } from "./socket.js";
import { testDatabaseFor } from "./test-database.js";

export const PROVIDER = "testkit";
export const MODEL = "scripted-model";

export interface TestClock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function testClock(start = Date.UTC(2026, 6, 18, 3, 0, 0)): TestClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms), set: (ms) => void (t = ms) };
}

export interface Harness {
  kit: Testkit;
  root: string;
  workspace: string;
  server: ServerApp;
  ticker: ManualTicker;
  clock: TestClock;
  adminPassword: string;
  /** fetch-like access to the listening app by any URL (`http://localhost/...`). */
  request(url: string, init?: RequestInit): Promise<Response>;
  /** The port the app listens on at 127.0.0.1 (for a client in another process). */
  port: number;
  /** A client over the socket. */
  client(): ApiClient;
  /** A signed-in admin client over the socket, the initial password changed (to itself). */
  admin(): Promise<ApiClient>;
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  script?: ScriptStep[];
  app?: Partial<ServerAppOptions>;
  entry?: Partial<ModelEntry>;
  root?: string;
  /** The admin password of a reused root (a restarted server has no initial password to hand out). */
  adminPassword?: string;
  clock?: TestClock;
}

export function modelEntry(kit: Testkit, extra: Partial<ModelEntry> = {}): ModelEntry {
  return { provider: PROVIDER, model_id: MODEL, client_type: "openai-chat", base_url: kit.baseUrl("openai-chat"), api_key: "sk-test-0123456789abcdef", context_window: 128000, ...extra };
}

export function configureProject(root: string, projectId: string, entry: ModelEntry): void {
  writeProjectConfig(projectPaths(root, projectId).projectConfig, { default_model: { provider: entry.provider, model_id: entry.model_id }, models: [entry] });
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const kit = await startTestkit({ script: options.script ?? [] });
  const root = options.root ?? mkdtempSync(join(tmpdir(), "penguin-server-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-ws-"));
  configureProject(root, "default_project", modelEntry(kit, options.entry));
  const clock = options.clock ?? testClock();
  const ticker = new ManualTicker();
  // PENGUIN_TEST_DATABASE=postgres: the same server with its facts in PostgreSQL.
  const database = await testDatabaseFor(root);
  const server = await createServerApp({
    ...(database === undefined ? {} : { database }),
    root,
    env: {},
    sleep: async () => undefined,
    now: clock.now,
    ticker,
    generateTitles: false,
    // Test workspaces are made with mkdtemp in the temp folder: that is their root.
    workspaceRoots: [tmpdir()],
    ...options.app,
  });
  // A fresh root yields the admin's initial password; a reused root (a restart) has none,
  // and the caller passes the password it already knows.
  const adminPassword = server.initialPassword ?? options.adminPassword;
  if (adminPassword === undefined) throw new Error("a fresh root must yield an initial admin password (or pass adminPassword for a reused root)");
  const listening = await listenOnLoopback(server.app);
  const client = () => new ApiClient(listening.request);
  return {
    kit,
    root,
    workspace,
    server,
    ticker,
    clock,
    adminPassword,
    request: listening.request,
    port: listening.port,
    client,
    async admin() {
      const c = client();
      await c.signIn("admin", adminPassword);
      return c;
    },
    async cleanup() {
      await server.close();
      await listening.close();
      await kit.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` holds, yielding to the event loop between tries (no wall-clock sleeps). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, tries = 200_000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}
