// Agent State on disk: ensure creates the documented defaults and never overwrites; load
// validates and names the broken file; default_agent alone is seeded with library skills.
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listLibrarySkills } from "@penguin/skills";
import { ensureAgentState, loadAgentState } from "../../src/state/agent-state.js";
import { DEFAULT_AGENTS_MD, defaultSystemConfig } from "../../src/state/default-system-config.js";
import { agentPaths } from "../../src/state/paths.js";
import { configErrorOf, tempAgent } from "./helpers.js";

describe("ensureAgentState", () => {
  it("creates the layout, and loading it gives the documented defaults", async () => {
    const paths = await tempAgent("default_agent");
    await ensureAgentState(paths);
    for (const dir of [paths.toolsDir, paths.skillsDir, join(paths.memoryDir, "user"), paths.scheduleDir]) {
      expect((await stat(dir)).isDirectory()).toBe(true);
    }
    expect(await readdir(paths.toolsDir)).toEqual([]);
    expect(await readFile(paths.agentsMd, "utf8")).toBe(DEFAULT_AGENTS_MD);
    expect(await readFile(paths.systemConfig, "utf8")).toMatch(/^# system_config\.yaml/);

    const state = await loadAgentState(paths);
    expect(state.config).toEqual(defaultSystemConfig("default_agent"));
    expect(state.config).toMatchObject({
      version: 1,
      max_turns: -1,
      model: { max_tokens: 32000, thinking_level: "medium", timeoutMs: 120000 },
      compaction: { max_context_length: 256000, max_session_turns: -1, mode: "summarize" },
      memory: { enabled: true },
      vault: { enabled: true },
      skills: { enabled: true },
      schedules: { enabled: true },
      tools: { mcpServers: [] },
    });
    expect(state.agentsMd).toBe(DEFAULT_AGENTS_MD);
    expect(state.vault).toEqual({});
    expect(state.schedules).toEqual([]);
  });

  it("never overwrites edited files when run again", async () => {
    const paths = await tempAgent("default_agent");
    await ensureAgentState(paths);
    const config = "system_prompt: mine\nmax_turns: 7\n";
    await writeFile(paths.systemConfig, config);
    await writeFile(paths.agentsMd, "my rules\n");
    await writeFile(join(paths.toolsDir, "note.txt"), "keep");
    await ensureAgentState(paths);
    expect(await readFile(paths.systemConfig, "utf8")).toBe(config);
    expect(await readFile(paths.agentsMd, "utf8")).toBe("my rules\n");
    expect(await readFile(join(paths.toolsDir, "note.txt"), "utf8")).toBe("keep");
    expect((await loadAgentState(paths)).config.max_turns).toBe(7);
  });

  it("gives default_agent every preinstalled library skill, and another agent none", async () => {
    const expected = listLibrarySkills()
      .filter((s) => s.preinstall)
      .map((s) => s.name);
    expect(expected.length).toBeGreaterThanOrEqual(8);

    const main = await tempAgent("default_agent");
    await ensureAgentState(main);
    expect((await readdir(main.skillsDir)).sort()).toEqual(expected);
    const loaded = await loadAgentState(main);
    expect(loaded.skills.map((s) => s.name)).toEqual(expected);
    expect(loaded.skills.every((s) => s.dir.startsWith(main.skillsDir))).toBe(true);
    expect(await readdir(main.agentState)).not.toContainEqual(expect.stringMatching(/^\.skills-seed/));

    const other = agentPaths(main.root, main.projectId, "helper");
    await ensureAgentState(other);
    expect(await readdir(other.skillsDir)).toEqual([]);
    expect((await loadAgentState(other)).skills).toEqual([]);
  });

  it("does not bring back a skill the user deleted", async () => {
    const paths = await tempAgent("default_agent");
    await ensureAgentState(paths);
    const [first] = await readdir(paths.skillsDir);
    expect(first).toBeDefined();
    await import("node:fs/promises").then((fs) => fs.rm(join(paths.skillsDir, first ?? ""), { recursive: true }));
    await ensureAgentState(paths);
    expect(await readdir(paths.skillsDir)).not.toContain(first);
  });

  it("names the agent after its id when the config has no name", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await writeFile(paths.systemConfig, "system_prompt: x\n");
    expect((await loadAgentState(paths)).config.name).toBe("helper");
  });
});

describe("loadAgentState errors", () => {
  it("names system_config.yaml when it is broken or missing", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await writeFile(paths.systemConfig, "system_prompt: x\nmax_turns: \"x\"\n");
    const wrong = await configErrorOf(() => loadAgentState(paths));
    expect(wrong.message).toContain(`${paths.systemConfig}, line 2, field "max_turns"`);

    await writeFile(paths.systemConfig, "system_prompt: [unclosed\n");
    expect((await configErrorOf(() => loadAgentState(paths))).message).toContain(paths.systemConfig);

    await writeFile(paths.systemConfig, "name: a\n");
    const missing = await configErrorOf(() => loadAgentState(paths));
    expect(missing.detail).toMatchObject({ file: paths.systemConfig, field: "system_prompt" });

    const { rm } = await import("node:fs/promises");
    await rm(paths.systemConfig);
    expect((await configErrorOf(() => loadAgentState(paths))).detail).toMatchObject({ file: paths.systemConfig, problem: "missing" });
  });

  it("names a broken installed SKILL.md with its line and field", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await mkdir(join(paths.skillsDir, "broken"));
    const file = join(paths.skillsDir, "broken", "SKILL.md");
    await writeFile(file, "---\ndescription: fine\nversion: two\n---\n");
    const err = await configErrorOf(() => loadAgentState(paths));
    expect(err.message).toContain(`${file}, line 3, field "version"`);
  });

  it("names a broken .vault.toml", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await writeFile(paths.vault, "TOKEN = 42\n");
    const err = await configErrorOf(() => loadAgentState(paths));
    expect(err.message).toContain(`${paths.vault}, line 1, field "TOKEN"`);
  });

  it("summarizes schedules instead of failing on a broken one", async () => {
    const paths = await tempAgent("helper");
    await ensureAgentState(paths);
    await writeFile(join(paths.scheduleDir, "daily.toml"), 'prompt = "x"\nenabled = true\nstart_at = "2026-01-01T00:00:00Z"\nperiod = "1d"\n');
    await writeFile(join(paths.scheduleDir, "once.toml"), 'prompt = "y"\nstart_at = "2026-01-01T00:00:00Z"\n');
    await writeFile(join(paths.scheduleDir, "bad.toml"), "prompt = \n");
    await writeFile(join(paths.scheduleDir, "notes.txt"), "ignored");
    const { schedules } = await loadAgentState(paths);
    expect(schedules.map((s) => s.name)).toEqual(["bad", "daily", "once"]);
    expect(schedules[0]?.problem).toMatch(/not valid TOML/);
    expect(schedules[1]).toEqual({ name: "daily", enabled: true, period: "1d" });
    expect(schedules[2]).toEqual({ name: "once", enabled: false });
  });
});
