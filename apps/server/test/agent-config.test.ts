// Server-side edits of system_config.yaml keep the user's file: the kernel update fills only
// missing keys (with the defaults' comments) and reports them, reset keeps name, description
// and version, the vault and memory placeholders are added once (409 after), and the
// thinking level picked in the web draft lands in model.thinking_level with comments intact.
// The MCP connection test talks to a real MCP server (its command on the admin's list of stdio
// MCP commands; one off the list is a 403); the tools route lists what a session of the agent gets.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, defaultSystemConfigYaml, KERNEL_VERSION, parseSystemConfig } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const A = "/api/projects/default_project/agents/default_agent";
// The reference MCP test server, resolved from this package's own dev dependencies.
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

/** A user's trimmed config: own comments, an old kernel, no compaction/memory/vault/skills/schedules/tools, model without timeoutMs. */
const TRIMMED = `# my agent, tuned by hand
name: helper
description: Helps with chores   # keep this comment
version: 7
kernel_version: 0
system_prompt: |
  You help with chores.
  {{AGENTS_MD}}
max_turns: 40
model:
  # I like it deep
  thinking_level: high
  max_tokens: 8000
`;

describe("kernel update", () => {
  it("fills only the missing keys, keeps every present value and comment, and reports what it added", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = agentPaths(h.root, "default_project", "default_agent").systemConfig;
    writeFileSync(file, TRIMMED);
    const res = await c.post(`${A}/config/kernel-update`);
    expect(res.status).toBe(200);
    expect(res.body.added).toEqual(["model.timeoutMs", "compaction", "memory", "vault", "skills", "schedules", "tools"]);
    expect(res.body.kernelVersion).toEqual({ from: 0, to: KERNEL_VERSION });
    const text = readFileSync(file, "utf8");
    expect(res.body.systemConfig).toBe(text);
    for (const kept of ["# my agent, tuned by hand", "# keep this comment", "# I like it deep", "max_turns: 40", "thinking_level: high", "max_tokens: 8000", "version: 7"]) expect(text).toContain(kept);
    expect(text).toContain("# Context compaction: when the context grows");
    const parsed = parseSystemConfig(text, file);
    expect(parsed).toMatchObject({ name: "helper", version: 7, kernel_version: KERNEL_VERSION, max_turns: 40, model: { thinking_level: "high", max_tokens: 8000, timeoutMs: 120000 } });
    expect(parsed.compaction.mode).toBe("summarize");

    const again = await c.post(`${A}/config/kernel-update`);
    expect(again.body.added).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("refuses a file that is not YAML instead of guessing", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = agentPaths(h.root, "default_project", "default_agent").systemConfig;
    writeFileSync(file, "system_prompt: [unclosed\n");
    const res = await c.post(`${A}/config/kernel-update`);
    expect(res.status).toBe(400);
    expect(readFileSync(file, "utf8")).toBe("system_prompt: [unclosed\n");
  });
});

describe("reset", () => {
  it("restores the defaults but keeps name, description and version", async () => {
    h = await startHarness();
    const c = await h.admin();
    const paths = agentPaths(h.root, "default_project", "default_agent");
    writeFileSync(paths.systemConfig, TRIMMED);
    writeFileSync(paths.agentsMd, "# my rules\n");
    const res = await c.post(`${A}/config/reset`);
    expect(res.status).toBe(200);
    const parsed = parseSystemConfig(res.body.systemConfig, paths.systemConfig);
    expect(parsed).toMatchObject({ name: "helper", description: "Helps with chores", version: 7, max_turns: -1, model: { thinking_level: "medium" } });
    expect(res.body.systemConfig).toContain("# Context compaction");
    expect(res.body.agentsMd).not.toContain("my rules");
    expect(readFileSync(paths.agentsMd, "utf8")).toBe(res.body.agentsMd);
  });
});

describe("prompt placeholders", () => {
  it("adds {{VAULT}} and {{MEMORY}} once each, and answers 409 when they are there", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = agentPaths(h.root, "default_project", "default_agent").systemConfig;
    expect(defaultSystemConfigYaml("default_agent")).toContain("{{VAULT}}");
    const present = await c.post(`${A}/vault/template-placeholder`);
    expect(present.status).toBe(409);
    expect(present.body.error.code).toBe("placeholder_present");

    writeFileSync(file, TRIMMED);
    const vault = await c.post(`${A}/vault/template-placeholder`);
    expect(vault.status).toBe(200);
    const memory = await c.post(`${A}/memory/template-placeholder`);
    expect(memory.status).toBe(200);
    const prompt = parseSystemConfig(readFileSync(file, "utf8"), file).system_prompt;
    expect(prompt).toBe("You help with chores.\n{{AGENTS_MD}}\n\n{{VAULT}}\n\n{{MEMORY}}\n");
    expect(readFileSync(file, "utf8")).toBe(TRIMMED.replace("  {{AGENTS_MD}}\n", "  {{AGENTS_MD}}\n\n  {{VAULT}}\n\n  {{MEMORY}}\n"));
    expect((await c.post(`${A}/memory/template-placeholder`)).status).toBe(409);
  });
});

describe("thinking level write-back", () => {
  it("sets model.thinking_level in place, keeping comments, and creates model when missing", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = agentPaths(h.root, "default_project", "default_agent").systemConfig;
    writeFileSync(file, TRIMMED);
    expect((await c.get(`${A}/config/thinking-level`)).body).toEqual({ thinkingLevel: "high" });
    const res = await c.put(`${A}/config/thinking-level`, { thinkingLevel: "low" });
    expect(res.status).toBe(200);
    expect((await c.get(`${A}/config/thinking-level`)).body).toEqual({ thinkingLevel: "low" });
    const text = readFileSync(file, "utf8");
    expect(text).toBe(TRIMMED.replace("thinking_level: high", "thinking_level: low"));
    writeFileSync(file, "# only a prompt\nsystem_prompt: hi\n");
    await c.put(`${A}/config/thinking-level`, { thinkingLevel: "max" });
    expect(parseSystemConfig(readFileSync(file, "utf8"), file).model.thinking_level).toBe("max");
    expect(readFileSync(file, "utf8")).toContain("# only a prompt");
    expect((await c.put(`${A}/config/thinking-level`, { thinkingLevel: "extreme" })).body.error.field).toBe("thinkingLevel");
  });
});

describe("MCP connection test", () => {
  it("connects a real stdio server, lists its tools as sessions name them, and reports a server that cannot start", async () => {
    // The sandbox turned off by the operator, so the checkout's node_modules (the server's code)
    // is there wherever the checkout lies; stdio commands come from the admin's list: node and a
    // listed command that is not installed, with unsandboxed servers allowed.
    h = await startHarness({ app: { sandbox: { enabled: false } } });
    const c = await h.admin();
    const listed = await c.put("/api/admin/settings", { mcp: { stdioCommands: [process.execPath, "/nonexistent/mcp-server-binary"], allowUnsandboxedStdio: true } });
    expect(listed.status).toBe(200);
    const ok = await c.post(`${A}/config/mcp-test`, { name: "everything", config: { command: process.execPath, args: [EVERYTHING, "stdio"] } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, transport: "stdio" });
    expect(ok.body.durationMs).toBeGreaterThanOrEqual(0);
    const names = ok.body.tools.map((t: any) => t.name);
    expect(names).toContain("mcp__everything__echo");
    expect(ok.body.tools.find((t: any) => t.name === "mcp__everything__echo")).toMatchObject({ permission: expect.stringMatching(/^rw?$/) });

    const broken = await c.post(`${A}/config/mcp-test`, { name: "ghost", config: { command: "/nonexistent/mcp-server-binary" } });
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({ ok: false, transport: "stdio", tools: [] });
    expect(broken.body.error).toMatch(/cannot start "\/nonexistent\/mcp-server-binary": command not found/);

    const unlisted = await c.post(`${A}/config/mcp-test`, { name: "shell", config: { command: "sh", args: ["-c", "true"] } });
    expect(unlisted.status).toBe(403);
    expect(unlisted.body.error.code).toBe("mcp_command_not_allowed");

    const invalid = await c.post(`${A}/config/mcp-test`, { name: "typo", config: { comand: "npx" } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("invalid_config");
  });
});

describe("MCP commands setting", () => {
  it("defaults to an empty list with unsandboxed stdio off, and refuses entries that are neither a name nor an absolute path", async () => {
    h = await startHarness();
    const c = await h.admin();
    const settings = (await c.get("/api/admin/settings")).body;
    expect(settings.mcp).toEqual({ stdioCommands: [], allowUnsandboxedStdio: false });
    for (const bad of ["./my-mcp", "bin/my-mcp", "", " npx", "np\nx"]) {
      const res = await c.put("/api/admin/settings", { ...settings, mcp: { stdioCommands: ["uvx", bad] } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.field).toBe("mcp.stdioCommands.1");
    }
    expect((await c.put("/api/admin/settings", { ...settings, mcp: { stdioCommands: ["npx", "/usr/local/bin/my-mcp"], allowUnsandboxedStdio: true } })).status).toBe(200);
    expect((await c.get("/api/admin/settings")).body.mcp).toEqual({ stdioCommands: ["npx", "/usr/local/bin/my-mcp"], allowUnsandboxedStdio: true });
    // Left out, the setting takes its default again (PUT replaces the whole value).
    expect((await c.put("/api/admin/settings", { workspaceRoots: [] })).body.mcp).toEqual({ stdioCommands: [], allowUnsandboxedStdio: false });
  });
});

describe("tools", () => {
  it("lists the builtin tools a session gets and the configured MCP servers without their secrets", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = agentPaths(h.root, "default_project", "default_agent").systemConfig;
    const text = readFileSync(file, "utf8").replace("  mcpServers: []", "  mcpServers:\n    - name: files\n      config: { command: npx, args: [files-mcp], env: { TOKEN: s3cret } }\n    - name: web\n      config: { url: 'https://mcp.example/mcp', headers: { Authorization: Bearer-xyz } }");
    writeFileSync(file, text);
    const res = await c.get(`${A}/tools`);
    expect(res.status).toBe(200);
    const byName = new Map(res.body.builtin.map((t: any) => [t.name, t]));
    for (const name of ["read_file", "edit_file", "write_file", "exec_command", "input_command", "kill_command", "run_subagent", "input_subagent", "kill_subagent", "read_image", "describe_image"]) expect(byName.has(name), name).toBe(true);
    expect(byName.get("read_file")).toMatchObject({ permission: "r", timeoutMs: 30000 });
    expect(byName.get("exec_command")).toMatchObject({ permission: "rw", timeoutMs: 120000 });
    expect(byName.get("read_image")).toMatchObject({ condition: "models with vision" });
    expect(res.body.mcp).toEqual([
      { name: "files", transport: "stdio", permission: "auto", command: "npx", args: ["files-mcp"], envKeys: ["TOKEN"], headerKeys: [] },
      { name: "web", transport: "http", permission: "auto", url: "https://mcp.example/mcp", envKeys: [], headerKeys: ["Authorization"] },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/s3cret|Bearer-xyz/);
    expect(res.body.hooks).toEqual([]);
  });

  it("lists the configured hooks, one row per command, read-only", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = agentPaths(h.root, "default_project", "default_agent").systemConfig;
    writeFileSync(file, `${readFileSync(file, "utf8")}\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - { type: command, command: ./guard.sh, timeout: 5 }\n  Stop:\n    - hooks: [{ type: command, command: ./notify.sh }]\n`);
    const res = await c.get(`${A}/tools`);
    expect(res.status).toBe(200);
    expect(res.body.hooks).toEqual([
      { event: "PreToolUse", matcher: "Bash", command: "./guard.sh", timeoutSeconds: 5 },
      { event: "Stop", command: "./notify.sh" },
    ]);
  });
});
