// A benchmark world: a data root whose project config points one model entry at a base URL
// (a testkit, or a proxy in front of one), and a workspace. Real files in temp dirs, like the
// tests; the rows that spawn the CLI pass `env` so the child uses this root and no provider
// key from the caller's shell.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, writeProjectConfig, type Agent } from "@penguin/core";
import type { WireProtocol } from "@penguin/testkit";

export const PROVIDER = "bench";
export const MODEL = "bench-model";

export interface World {
  root: string;
  workspace: string;
  agent: Agent;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export async function makeWorld(baseUrl: string, protocol: WireProtocol = "openai-chat", contextWindow = 1_000_000): Promise<World> {
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-root-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-bench-ws-"));
  writeFileSync(join(workspace, "notes.txt"), "benchmark notes\n");
  const agent = await createAgent({ root, env: {} });
  writeProjectConfig(agent.paths.projectConfig, {
    default_model: { provider: PROVIDER, model_id: MODEL },
    models: [{ provider: PROVIDER, model_id: MODEL, client_type: protocol, base_url: baseUrl, api_key: "sk-bench-0000", context_window: contextWindow }],
  });
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/_API_KEY$|_BASE_URL$|^PENGUIN_/.test(k)) env[k] = v;
  env.PENGUIN_HOME = root;
  env.NO_COLOR = "1";
  return {
    root,
    workspace,
    agent: await createAgent({ root, env: {} }),
    env,
    cleanup() {
      rmSync(root, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
