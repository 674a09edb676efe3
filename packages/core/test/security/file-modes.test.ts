// Files that hold secrets are private: `.project_config.toml` (API keys) and `.vault.toml`
// (vault values) are written with mode 0600 by core's own writers, whether the file is new,
// replaced, or was left world-readable by someone else, and whatever the process umask.
// (The CLI's config commands are covered in apps/cli/test/config.test.ts.)
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent.js";
import { readProjectConfig, writeProjectConfig } from "../../src/state/project-config.js";
import { setVaultValue, writeVault } from "../../src/state/vault.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

async function freshAgent() {
  const root = mkdtempSync(join(tmpdir(), "penguin-modes-"));
  roots.push(root);
  return createAgent({ root, env: {} });
}

const modeOf = (file: string) => statSync(file).mode & 0o777;
const entry = { provider: "p", model_id: "m", client_type: "openai-chat" as const, base_url: "http://127.0.0.1:9/v1", api_key: "sk-mode-check-0001" };

describe("secret files are 0600", () => {
  it(".project_config.toml: new, rewritten, and after someone made it world-readable", async () => {
    const agent = await freshAgent();
    const file = agent.paths.projectConfig;
    writeProjectConfig(file, { models: [entry] });
    expect(modeOf(file)).toBe(0o600);
    chmodSync(file, 0o644);
    writeProjectConfig(file, { ...readProjectConfig(file), default_model: { provider: "p", model_id: "m" } });
    expect(modeOf(file)).toBe(0o600);
    expect(readProjectConfig(file).models[0]?.api_key).toBe("sk-mode-check-0001");
  });

  it(".vault.toml: new, rewritten, and after someone made it world-readable", async () => {
    const agent = await freshAgent();
    const file = agent.paths.vault;
    await setVaultValue(file, "TOKEN", "v-0001");
    expect(modeOf(file)).toBe(0o600);
    writeFileSync(file, 'OTHER = "x"\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    await writeVault(file, { TOKEN: "v-0002" });
    expect(modeOf(file)).toBe(0o600);
  });

  it("both stay 0600 under a permissive umask", async () => {
    const previous = process.umask(0);
    try {
      const agent = await freshAgent();
      writeProjectConfig(agent.paths.projectConfig, { models: [entry] });
      await setVaultValue(agent.paths.vault, "TOKEN", "v-0003");
      expect(modeOf(agent.paths.projectConfig)).toBe(0o600);
      expect(modeOf(agent.paths.vault)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });
});
