// A test world for the CLI: a testkit model server, a temp data root with a project config
// whose default model points at it, and a temp workspace. Everything is real (HTTP, files,
// child processes); only the model is scripted. `env` is what a CLI child gets: the temp
// root as PENGUIN_HOME, no colours, instant reconnect waits, and no provider keys leaking in
// from the developer's shell.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeProjectConfig, type ModelEntry } from "@penguin/core";
import { startTestkit, type ScriptStep, type Testkit, type WireProtocol } from "@penguin/testkit";

export const PROVIDER = "testkit";
export const MODEL = "scripted-model";
export const KEY = "sk-test-secret-0123456789";

export interface World {
  kit: Testkit;
  root: string;
  workspace: string;
  configFile: string;
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

export interface WorldOptions {
  script?: ScriptStep[];
  protocol?: WireProtocol;
  entry?: Partial<ModelEntry>;
  /** Leave the project without any model. */
  noModel?: boolean;
}

export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/_API_KEY$|_BASE_URL$|^PENGUIN_|^NO_COLOR$|^FORCE_COLOR$|^CLIENT_TYPE$/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: "1", PENGUIN_RETRY_DELAY_SCALE: "0", ...extra };
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const protocol = options.protocol ?? "openai-chat";
  const kit = await startTestkit({ script: options.script ?? [] });
  const root = mkdtempSync(join(tmpdir(), "penguin-cli-root-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-cli-ws-"));
  const configFile = join(root, "default_project", ".project_config.toml");
  if (options.noModel !== true) {
    const entry: ModelEntry = {
      provider: PROVIDER,
      model_id: MODEL,
      client_type: protocol,
      base_url: kit.baseUrl(protocol),
      api_key: KEY,
      context_window: 128000,
      pricing: { unit: "usd_per_mtok", cache_read: 0.1, cache_write: 1, output: 2 },
      ...options.entry,
    };
    writeProjectConfig(configFile, { default_model: { provider: entry.provider, model_id: entry.model_id }, models: [entry] });
  }
  return {
    kit,
    root,
    workspace,
    configFile,
    env: cleanEnv({ PENGUIN_HOME: root }),
    async cleanup() {
      await kit.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
