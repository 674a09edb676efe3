/**
 * One agent's editable state (SPEC §9 `A/config`, `A/vault`, `A/skills`, `/api/skills`):
 * `system_config.yaml` and `AGENTS.md` as text (the server validates and keeps comments),
 * the vault with masked values (sending a masked value back keeps the stored one), the
 * installed skills, the builtin library, and the MCP connection probe.
 */
import { del, get, post, put } from "./http";
import { projectPath } from "./projects";
import { arr, asRecord, listOf, str } from "./read";
import type { AgentConfig, InstalledSkill, LibrarySkill, VaultEntry } from "./types";

const agentPath = (p: string, a: string) => `${projectPath(p)}/agents/${encodeURIComponent(a)}`;

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

/** Probes the MCP servers of a config; answers whatever the server reports per server. */
export async function testMcp(p: string, a: string, body: Record<string, unknown>): Promise<unknown> {
  return post(`${agentPath(p, a)}/config/mcp-test`, body);
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
      if (description !== undefined) skill.description = description;
      const g = group ?? str(r, "group");
      if (g !== undefined) skill.group = g;
      return [skill];
    });
  if (groups.length > 0) return groups.flatMap((g) => flat(arr(asRecord(g), "skills"), str(asRecord(g), "name", "group")));
  return flat(listOf(raw, "skills"));
}
