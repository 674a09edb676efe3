// system_config.yaml parsing: defaults fill missing keys, and every kind of broken file is a
// ConfigError that names the file, the line and the field.
import { describe, expect, it } from "vitest";
import { CONFIG_DEFAULTS, defaultSystemConfig, defaultSystemConfigYaml, KERNEL_VERSION } from "../../src/state/default-system-config.js";
import { DEFAULT_SYSTEM_PROMPT } from "../../src/state/default-system-prompt.js";
import { DEFAULT_COMPACTION_PROMPT } from "../../src/state/default-section-prompts.js";
import { parseSystemConfig } from "../../src/state/system-config.js";
import { configErrorOf } from "./helpers.js";

const FILE = "/data/p/agents/a/agent_state/system_config.yaml";

describe("parseSystemConfig", () => {
  it("reads the default file back as the documented defaults", () => {
    const config = parseSystemConfig(defaultSystemConfigYaml("default_agent"), FILE);
    expect(config).toEqual(defaultSystemConfig("default_agent"));
    expect(config.system_prompt).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(config.kernel_version).toBe(KERNEL_VERSION);
  });

  it("fills every missing key from the SPEC §6 defaults", () => {
    const config = parseSystemConfig("system_prompt: hello\n", FILE);
    expect(config).toEqual({
      name: "",
      description: "",
      version: 1,
      kernel_version: 0,
      system_prompt: "hello",
      max_turns: -1,
      model: { max_tokens: 32000, thinking_level: "medium", timeoutMs: 120000 },
      compaction: { max_context_length: 256000, max_session_turns: -1, mode: "summarize", prompt: DEFAULT_COMPACTION_PROMPT },
      memory: CONFIG_DEFAULTS.memory,
      vault: CONFIG_DEFAULTS.vault,
      skills: CONFIG_DEFAULTS.skills,
      schedules: CONFIG_DEFAULTS.schedules,
      tools: { mcpServers: [] },
    });
  });

  it("fills missing keys inside a section and keeps the ones given", () => {
    const config = parseSystemConfig("system_prompt: x\nmodel:\n  max_tokens: 1000\nvault:\n  enabled: false\ncompaction:\n", FILE);
    expect(config.model).toEqual({ max_tokens: 1000, thinking_level: "medium", timeoutMs: 120000 });
    expect(config.vault).toEqual({ enabled: false, prompt: CONFIG_DEFAULTS.vault.prompt });
    expect(config.compaction).toEqual(CONFIG_DEFAULTS.compaction);
  });

  it("accepts custom tools and MCP servers, ignoring unknown keys", () => {
    const config = parseSystemConfig(
      [
        "system_prompt: x",
        "future_key: 3",
        "tools:",
        "  builtin:",
        "    - name: read_file",
        "      description: Read a file",
        "      parameters: { type: object }",
        "  mcpServers:",
        "    - name: files",
        "      config: { command: npx, args: [srv] }",
      ].join("\n"),
      FILE,
    );
    expect(config.tools).toEqual({
      builtin: [{ name: "read_file", description: "Read a file", parameters: { type: "object" } }],
      mcpServers: [{ name: "files", config: { command: "npx", args: ["srv"] } }],
    });
    expect(config).not.toHaveProperty("future_key");
  });

  it("reports malformed YAML with the file and line", async () => {
    const err = await configErrorOf(() => parseSystemConfig("system_prompt: x\nmodel:\n  max_tokens: [1,\n", FILE));
    expect(err.message).toContain(FILE);
    expect(err.detail.line).toBe(4);
    expect(err.message).toMatch(/not valid YAML/);
  });

  it("reports a duplicated key as malformed YAML", async () => {
    const err = await configErrorOf(() => parseSystemConfig("system_prompt: x\nmax_turns: 3\nmax_turns: 4\n", FILE));
    expect(err.detail.line).toBe(3);
  });

  it("reports a wrong type with its line and field", async () => {
    const err = await configErrorOf(() => parseSystemConfig('name: a\nsystem_prompt: x\nmax_turns: "x"\n', FILE));
    expect(err.detail).toMatchObject({ file: FILE, line: 3, field: "max_turns" });
    expect(err.message).toContain(`${FILE}, line 3, field "max_turns"`);
    expect(err.message).toContain('the text "x"');
  });

  it("reports a nested wrong value at the nested key's line", async () => {
    const text = "system_prompt: x\nmodel:\n  max_tokens: 10\n  thinking_level: extreme\n";
    const err = await configErrorOf(() => parseSystemConfig(text, FILE));
    expect(err.detail).toMatchObject({ line: 4, field: "model.thinking_level" });
    expect(err.message).toMatch(/must be one of none, low, medium/);
  });

  it("rejects limits that are neither -1 nor positive", async () => {
    const err = await configErrorOf(() => parseSystemConfig("system_prompt: x\ncompaction:\n  max_session_turns: 0\n", FILE));
    expect(err.detail).toMatchObject({ line: 3, field: "compaction.max_session_turns" });
  });

  it("reads tools.exec.loginShell (absent: commands use the captured environment), and names a bad value", async () => {
    expect(parseSystemConfig("system_prompt: x\n", FILE).tools.exec?.loginShell).toBeUndefined();
    expect(parseSystemConfig("system_prompt: x\ntools:\n  exec:\n    loginShell: true\n", FILE).tools.exec).toEqual({ loginShell: true });
    const err = await configErrorOf(() => parseSystemConfig("system_prompt: x\ntools:\n  exec:\n    loginShell: sometimes\n", FILE));
    expect(err.detail).toMatchObject({ line: 4, field: "tools.exec.loginShell" });
    expect(err.message).toContain("must be true or false");
  });

  it("reports a bad MCP entry by index, and a repeated server name", async () => {
    const missing = await configErrorOf(() => parseSystemConfig("system_prompt: x\ntools:\n  mcpServers:\n    - name: a\n", FILE));
    expect(missing.detail).toMatchObject({ field: "tools.mcpServers[0].config", line: 4 });
    const twice = "system_prompt: x\ntools:\n  mcpServers:\n    - { name: a, config: {} }\n    - { name: a, config: {} }\n";
    const repeated = await configErrorOf(() => parseSystemConfig(twice, FILE));
    expect(repeated.detail).toMatchObject({ field: "tools.mcpServers[1].name", line: 5 });
  });

  it("names system_prompt when it is missing", async () => {
    const err = await configErrorOf(() => parseSystemConfig("name: a\nmax_turns: 3\n", FILE));
    expect(err.detail.field).toBe("system_prompt");
    expect(err.message).toContain(FILE);
    expect(err.message).toMatch(/required/);
  });

  it("says, for every kind of bad value, the file, the key and what it must be", async () => {
    const cases: [string, string, string][] = [
      ["system_prompt: 3\n", "system_prompt", "must be text, got 3"],
      ["system_prompt: x\nmax_turns: 1.5\n", "max_turns", "must be a whole number, got 1.5"],
      ["system_prompt: x\nversion: 0\n", "version", "must be greater than 0, got 0"],
      ["system_prompt: x\nkernel_version: -2\n", "kernel_version", "must be 0 or more, got -2"],
      ["system_prompt: x\nmodel: 3\n", "model", "must be a mapping, got 3"],
      ["system_prompt: x\nvault: [1]\n", "vault", "must be a mapping, got a list"],
      ["system_prompt: x\ncompaction:\n  mode: zap\n", "compaction.mode", 'must be summarize or discard, got the text "zap"'],
      ["system_prompt: x\nmemory:\n  enabled: maybe\n", "memory.enabled", 'must be true or false, got the text "maybe"'],
      ["system_prompt: x\ntools:\n  builtin: 5\n", "tools.builtin", "must be a list of tool definitions, got 5"],
      ["system_prompt: x\ntools:\n  builtin:\n    - 5\n", "tools.builtin[0]", "must be a mapping with name, description and parameters, got 5"],
      ['system_prompt: x\ntools:\n  builtin:\n    - { name: "", description: d }\n', "tools.builtin[0].name", 'must not be empty, got the text ""'],
      ["system_prompt: x\ntools:\n  builtin:\n    - { name: a, description: d, parameters: 3 }\n", "tools.builtin[0].parameters", "must be a mapping (a JSON schema), got 3"],
      ["system_prompt: x\ntools:\n  mcpServers: { a: 1 }\n", "tools.mcpServers", "must be a list of { name, config } entries, got a mapping"],
      ['system_prompt: x\ntools:\n  mcpServers:\n    - { name: "a b", config: {} }\n', "tools.mcpServers[0].name", 'must use only letters, digits, _ and -, got the text "a b"'],
      ["system_prompt: x\ntools:\n  mcpServers:\n    - { name: a, config: 3 }\n", "tools.mcpServers[0].config", "must be a mapping of transport settings, got 3"],
    ];
    for (const [text, field, problem] of cases) {
      const err = await configErrorOf(() => parseSystemConfig(text, FILE));
      expect({ field: err.detail.field, problem: err.detail.problem, file: err.detail.file }).toEqual({ field, problem, file: FILE });
      expect(err.message).toContain(`${FILE}, line `);
    }
  });

  it("rejects an empty file and a non-mapping document", async () => {
    expect((await configErrorOf(() => parseSystemConfig("", FILE))).message).toMatch(/empty/);
    expect((await configErrorOf(() => parseSystemConfig("- a\n- b\n", FILE))).message).toMatch(/mapping/);
  });
});
