/**
 * One agent's editable state (SPEC §9 `A/config`, `A/vault`, `A/skills`, `A/tools`,
 * `/api/skills`): `system_config.yaml` and `AGENTS.md` as text (the server validates and
 * keeps comments), the server-side config edits (kernel update, thinking level, section
 * placeholders), the vault with masked values (sending a masked value back keeps the stored
 * one), the installed skills with zip import/export, the builtin library, the tool catalog
 * and the MCP connection probe.
 */
import { del, get, post, put } from "./http";
import { projectPath } from "./projects";
import { arr, asRecord, bool, listOf, num, oneOf, str } from "./read";
import { THINKING_LEVELS, type AgentConfig, type AgentTools, type InstalledSkill, type LibrarySkill, type McpTestResult, type ThinkingLevel, type VaultEntry } from "./types";

export const agentPath = (p: string, a: string) => `${projectPath(p)}/agents/${encodeURIComponent(a)}`;

function configOf(raw: unknown): AgentConfig {
  const o = asRecord(raw);
  return { systemConfig: str(o, "systemConfig") ?? "", agentsMd: str(o, "agentsMd") ?? "" };
}

export async function getAgentConfig(p: string, a: string): Promise<AgentConfig> {
  return configOf(await get(`${agentPath(p, a)}/config`));
}

export async function putAgentConfig(p: string, a: string, patch: Partial<AgentConfig>): Promise<AgentConfig> {
  return configOf(await put(`${agentPath(p, a)}/config`, patch));
}

export async function resetAgentConfig(p: string, a: string): Promise<AgentConfig> {
  return configOf(await post(`${agentPath(p, a)}/config/reset`, {}));
}

/** Connects one MCP server as a session would and reports its tools. */
export async function testMcp(p: string, a: string, body: { name: string; config: Record<string, unknown> }): Promise<McpTestResult> {
  const o = asRecord(await post(`${agentPath(p, a)}/config/mcp-test`, body));
  const r: McpTestResult = {
    ok: bool(o, "ok") ?? false,
    transport: str(o, "transport") ?? "",
    durationMs: num(o, "durationMs") ?? 0,
    tools: arr(o, "tools").flatMap((t) => {
      const tr = asRecord(t);
      const name = str(tr, "name");
      return name === undefined ? [] : [{ name, description: str(tr, "description") ?? "", permission: str(tr, "permission") ?? "rw" }];
    }),
  };
  const error = str(o, "error");
  if (error !== undefined) r.error = error;
  return r;
}

/** Fills keys missing from system_config.yaml with the current defaults; which were added. */
export async function kernelUpdate(p: string, a: string): Promise<{ added: string[]; systemConfig: string }> {
  const o = asRecord(await post(`${agentPath(p, a)}/config/kernel-update`, {}));
  return { added: arr(o, "added").flatMap((k) => (typeof k === "string" ? [k] : [])), systemConfig: str(o, "systemConfig") ?? "" };
}

export async function getAgentThinkingLevel(p: string, a: string): Promise<ThinkingLevel | undefined> {
  return oneOf(asRecord(await get(`${agentPath(p, a)}/config/thinking-level`)).thinkingLevel, THINKING_LEVELS);
}

/** Writes model.thinking_level into the agent's system_config.yaml (comments kept). */
export const setAgentThinkingLevel = (p: string, a: string, thinkingLevel: ThinkingLevel) => put(`${agentPath(p, a)}/config/thinking-level`, { thinkingLevel });

/** Appends {{VAULT}} or {{MEMORY}} to the system prompt; answers the new config text. */
export async function insertPlaceholder(p: string, a: string, section: "vault" | "memory"): Promise<string> {
  return str(asRecord(await post(`${agentPath(p, a)}/${section}/template-placeholder`, {})), "systemConfig") ?? "";
}

export async function getAgentTools(p: string, a: string): Promise<AgentTools> {
  const o = asRecord(await get(`${agentPath(p, a)}/tools`));
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  return {
    builtin: arr(o, "builtin").flatMap((raw) => {
      const t = asRecord(raw);
      const name = str(t, "name");
      if (name === undefined) return [];
      const condition = str(t, "condition");
      const tool = { name, description: str(t, "description") ?? "", permission: str(t, "permission") ?? "rw", timeoutMs: num(t, "timeoutMs") ?? 0 };
      return [condition === undefined ? tool : { ...tool, condition }];
    }),
    mcp: arr(o, "mcp").flatMap((raw) => {
      const m = asRecord(raw);
      const name = str(m, "name");
      if (name === undefined) return [];
      const server: AgentTools["mcp"][number] = { name, transport: str(m, "transport") ?? "stdio", permission: str(m, "permission") ?? "auto", args: strings(m.args), envKeys: strings(m.envKeys), headerKeys: strings(m.headerKeys) };
      const command = str(m, "command");
      const url = str(m, "url");
      if (command !== undefined) server.command = command;
      if (url !== undefined) server.url = url;
      return [server];
    }),
    hooks: arr(o, "hooks").flatMap((raw) => {
      const h = asRecord(raw);
      const event = str(h, "event");
      const command = str(h, "command");
      if (event === undefined || command === undefined) return [];
      const hook: AgentTools["hooks"][number] = { event, command };
      const matcher = str(h, "matcher");
      const timeoutSeconds = num(h, "timeoutSeconds");
      if (matcher !== undefined) hook.matcher = matcher;
      if (timeoutSeconds !== undefined) hook.timeoutSeconds = timeoutSeconds;
      return [hook];
    }),
  };
}

export async function getVault(p: string, a: string): Promise<VaultEntry[]> {
  return arr(asRecord(await get(`${agentPath(p, a)}/vault`)), "entries").flatMap((raw) => {
    const o = asRecord(raw);
    const name = str(o, "name");
    return name === undefined ? [] : [{ name, value: str(o, "value") ?? "" }];
  });
}

/** Full replace: `null` (or the masked value) keeps a stored value; a string sets it. */
export async function putVault(p: string, a: string, values: Record<string, string | null>): Promise<void> {
  await put(`${agentPath(p, a)}/vault`, { values });
}

export async function listInstalledSkills(p: string, a: string): Promise<InstalledSkill[]> {
  return listOf(await get(`${agentPath(p, a)}/skills`), "skills").flatMap((raw) => {
    const o = asRecord(raw);
    const name = str(o, "name");
    if (name === undefined) return [];
    const description = str(o, "description");
    return [description === undefined ? { name } : { name, description }];
  });
}

export const installSkills = (p: string, a: string, names: string[]) => post(`${agentPath(p, a)}/skills`, { names });
/** Installs a zipped skill folder; 409 `already_exists` unless `overwrite`. */
export const importSkillArchive = (p: string, a: string, dataBase64: string, overwrite: boolean) => post(`${agentPath(p, a)}/skills/archive`, { dataBase64, overwrite });
export const skillArchiveUrl = (p: string, a: string, name: string) => `${agentPath(p, a)}/skills/${encodeURIComponent(name)}/archive`;
export const uninstallSkill = (p: string, a: string, name: string) => del(`${agentPath(p, a)}/skills/${encodeURIComponent(name)}`);

/** The builtin library, flattened; groups (`{groups:[{name, skills}]}`) become `group`. */
export async function listLibrary(): Promise<LibrarySkill[]> {
  const raw = await get("/api/skills");
  const o = asRecord(raw);
  const groups = arr(o, "groups");
  const flat = (list: unknown[], group?: string): LibrarySkill[] =>
    list.flatMap((s) => {
      const r = asRecord(s);
      const name = str(r, "name");
      if (name === undefined) return [];
      const skill: LibrarySkill = { name };
      const description = str(r, "description");
      const short = str(r, "shortDescription");
      if (description !== undefined) skill.description = description;
      if (short !== undefined) skill.shortDescription = short;
      const g = group ?? str(r, "group");
      if (g !== undefined) skill.group = g;
      return [skill];
    });
  if (groups.length > 0) return groups.flatMap((g) => flat(arr(asRecord(g), "skills"), str(asRecord(g), "name", "group")));
  return flat(listOf(raw, "skills"));
}
