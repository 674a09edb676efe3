// System prompt assembly: every placeholder is filled, vault values never appear, text from
// files is never expanded again, and disabled sections vanish.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureAgentState, loadAgentState, type AgentState } from "../../src/state/agent-state.js";
import { fillPlaceholders } from "../../src/state/prompt-template.js";
import { assembleSystemPrompt, type PromptContext } from "../../src/state/prompt.js";
import { setVaultValue } from "../../src/state/vault.js";
import { tempAgent } from "./helpers.js";

const CANARY = "sk-canary-7f3a9e1b44d0";

const ctx = (over: Partial<PromptContext> = {}): PromptContext => ({
  workspace: "/work/repo",
  provider: "deepseek",
  modelId: "deepseek-v4-flash",
  sessionId: "session-2026-11-30-10-00-00-0123abcd",
  now: new Date(2026, 10, 30, 10, 0, 0),
  memory: { user: "- [Prefs](prefs.md) — terse answers", workspace: "- [Build](build.md) — make test", workspaceScopeDir: "/mem/repo-12345678" },
  host: { platform: "linux", osVersion: "Linux 6.1.0", shell: "/bin/bash" },
  ...over,
});

async function defaultState(): Promise<AgentState> {
  const paths = await tempAgent("default_agent");
  await ensureAgentState(paths);
  await setVaultValue(paths.vault, "GITHUB_TOKEN", CANARY);
  await setVaultValue(paths.vault, "API_KEY", `${CANARY}-2`);
  await writeFile(join(paths.scheduleDir, "nightly.toml"), 'prompt = "x"\nenabled = true\nstart_at = "2026-01-01T00:00:00Z"\nperiod = "1d"\n');
  return loadAgentState(paths);
}

describe("assembleSystemPrompt", () => {
  it("fills every placeholder of the default prompt", async () => {
    const state = await defaultState();
    const prompt = assembleSystemPrompt(state, ctx());
    expect(prompt).not.toMatch(/\{\{[A-Z_]+\}\}/);
    expect(prompt).toContain("- Platform: linux");
    expect(prompt).toContain("- OS version: Linux 6.1.0");
    expect(prompt).toContain("- Shell: /bin/bash");
    expect(prompt).toContain("- Date: 2026-11-30 (Monday)");
    expect(prompt).toContain(`- Project directory: ${state.paths.projectDir}`);
    expect(prompt).toContain("- Agent: default_agent");
    expect(prompt).toContain("- Workspace (working directory): /work/repo");
    expect(prompt).toContain("- Model provider: deepseek");
    expect(prompt).toContain("- Model: deepseek-v4-flash");
    expect(prompt).toContain("- Session: session-2026-11-30-10-00-00-0123abcd");
    expect(prompt).toContain(`[developer_instructions]\n${state.agentsMd.trim()}\n[/developer_instructions]`);
    // Sections, with their lists.
    expect(prompt).toContain("# Vault");
    expect(prompt).toContain("- API_KEY\n- GITHUB_TOKEN");
    expect(prompt).toContain("# Skills");
    expect(prompt).toMatch(/^- `software-engineering` — .+$/m);
    expect(prompt).toContain("# Memory");
    expect(prompt).toContain("- [Prefs](prefs.md) — terse answers");
    expect(prompt).toContain("- [Build](build.md) — make test");
    expect(prompt).toContain("/mem/repo-12345678");
    expect(prompt).toContain(join(state.paths.memoryDir, "user"));
    expect(prompt).toContain("# Schedules");
    expect(prompt).toContain("- `nightly` — enabled, every 1d");
  });

  it("never leaks a vault value", async () => {
    const state = await defaultState();
    expect(Object.values(state.vault)).toContain(CANARY);
    const prompt = assembleSystemPrompt(state, ctx());
    expect(prompt).not.toContain(CANARY);
    const custom = { ...state, config: { ...state.config, system_prompt: "{{VAULT}}|{{VAULT_KEYS}}|{{AGENTS_MD}}" } };
    expect(assembleSystemPrompt(custom, ctx())).not.toContain(CANARY);
  });

  it("never re-expands placeholders that come from AGENTS.md, skills or memory", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await setVaultValue(paths.vault, "SECRET", CANARY);
    await writeFile(paths.agentsMd, "Literal {{VAULT}} and {{SESSION_ID}} and {{VAULT_KEYS}}.\n");
    await mkdir(join(paths.skillsDir, "tricky"));
    await writeFile(join(paths.skillsDir, "tricky", "SKILL.md"), "---\ndescription: Mentions {{AGENTS_MD}} and {{CWD}}.\n---\n");
    const state = await loadAgentState(paths);
    const prompt = assembleSystemPrompt(state, ctx({ memory: { user: "- note about {{MODEL_ID}}" } }));
    expect(prompt).toContain("Literal {{VAULT}} and {{SESSION_ID}} and {{VAULT_KEYS}}.");
    expect(prompt).toContain("- `tricky` — Mentions {{AGENTS_MD}} and {{CWD}}.");
    expect(prompt).toContain("- note about {{MODEL_ID}}");
    expect(prompt).not.toContain(CANARY);
  });

  it("drops disabled sections and the workspace scope of a temporary workspace", async () => {
    const state = await defaultState();
    const off = { enabled: false, prompt: "SHOULD NOT APPEAR {{VAULT_KEYS}}" };
    const config = {
      ...state.config,
      vault: off,
      skills: off,
      schedules: off,
      memory: { enabled: false, prompt: "NO", workspace_prompt: "NO" },
    };
    const prompt = assembleSystemPrompt({ ...state, config }, ctx());
    for (const heading of ["# Vault", "# Skills", "# Schedules", "# Memory", "SHOULD NOT APPEAR", "GITHUB_TOKEN"]) {
      expect(prompt).not.toContain(heading);
    }
    expect(prompt).toContain("[/developer_instructions]\n\n# Environment");

    const temp = assembleSystemPrompt(state, ctx({ memory: { user: "" } }));
    expect(temp).toContain("# Memory");
    expect(temp).toContain("(empty: no memories saved yet)");
    expect(temp).not.toContain("Workspace memory for");
  });

  it("uses the config's own prompts and says when lists are empty", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await writeFile(
      paths.systemConfig,
      [
        "system_prompt: 'A={{AGENT_ID}} V=[{{VAULT}}] S=[{{SKILLS}}] C=[{{SCHEDULES}}] U={{UNKNOWN}}'",
        "vault: { prompt: 'keys {{VAULT_KEYS}} in {{CWD}}' }",
        "skills: { prompt: 'skills {{SKILL_METADATA}}' }",
        "schedules: { prompt: 'tasks {{SCHEDULE_LIST}}' }",
      ].join("\n"),
    );
    const prompt = assembleSystemPrompt(await loadAgentState(paths), ctx());
    expect(prompt).toBe(
      "A=helper V=[keys (no secrets stored yet) in /work/repo] S=[skills (no skills installed)] C=[tasks (no scheduled tasks)] U={{UNKNOWN}}",
    );
  });
});

describe("fillPlaceholders", () => {
  it("fills in one pass and leaves unknown names", () => {
    expect(fillPlaceholders("{{A}}-{{B}}-{{C}}", { A: "{{B}}", B: "b" })).toBe("{{B}}-b-{{C}}");
  });

  it("removes the line of a placeholder standing alone that expands to nothing", () => {
    expect(fillPlaceholders("top\n\n{{X}}\n\n{{Y}}\n\nend", { X: "", Y: "y" })).toBe("top\n\ny\n\nend");
    expect(fillPlaceholders("a {{X}} b", { X: "" })).toBe("a  b");
  });
});
