/**
 * Agent State: the `agent_state/` folder that defines an agent, created with defaults and
 * read back as one validated value.
 *
 *   system_config.yaml  behaviour (system-config.ts)     AGENTS.md   standing instructions
 *   .vault.toml         secrets (vault.ts)               skills/     installed skills
 *   memory/user/        user memory (memory.ts)          schedule/   scheduled tasks
 *   tools/              reserved, created empty
 *
 * `ensureAgentState` only ever adds what is missing and never overwrites a file, so it is
 * safe to run on every start. `default_agent` gets the library skills (all but those marked
 * `preinstall: false`) when its `skills/` folder is first created; other agents start with
 * none, and a skill the user later deletes is not brought back. The seeded folder is built
 * aside and renamed into place, so an interrupted first start cannot leave a partial set.
 *
 * `loadAgentState` reads everything a session needs; any broken file is a ConfigError that
 * names it. Schedules are the exception (schedules.ts): they are summarized, not enforced.
 * system_config.yaml comes from its parse cache (system-config-cache.ts) when that was made from
 * the same text; only otherwise is the parser (system-config.ts, with its schema) loaded.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "./config-error.js";
import { copyDir } from "./copy-dir.js";
import { DEFAULT_AGENTS_MD, defaultSystemConfigYaml } from "./default-system-config.js";
import { isNotFound, readOptional, writeIfMissing } from "./fs-utils.js";
import { userMemoryDir } from "./memory.js";
import { DEFAULT_AGENT, type AgentPaths } from "./paths.js";
import { listSchedules, type ScheduleSummary } from "./schedules.js";
import { listInstalledSkills, preinstalledLibrarySkills, type SkillMeta } from "./skills.js";
import { cachedSystemConfig, readSystemConfigCache, writeSystemConfigCache } from "./system-config-cache.js";
import type { SystemConfig } from "./system-config-shape.js";
import { readVault } from "./vault.js";

export interface AgentState {
  paths: AgentPaths;
  config: SystemConfig;
  /** AGENTS.md as written ("" when the file is missing). */
  agentsMd: string;
  /** Vault values, for subprocess environments only; the prompt gets the keys. */
  vault: Record<string, string>;
  skills: SkillMeta[];
  schedules: ScheduleSummary[];
}

export async function ensureAgentState(paths: AgentPaths): Promise<void> {
  await mkdir(paths.agentState, { recursive: true });
  await writeIfMissing(paths.systemConfig, () => defaultSystemConfigYaml(paths.agentId));
  await writeIfMissing(paths.agentsMd, DEFAULT_AGENTS_MD);
  await mkdir(paths.toolsDir, { recursive: true });
  await mkdir(userMemoryDir(paths), { recursive: true });
  await mkdir(paths.scheduleDir, { recursive: true });
  await ensureSkillsDir(paths);
}

export async function loadAgentState(paths: AgentPaths): Promise<AgentState> {
  // The files are read at once (each read waits on the thread pool: one after another they
  // cost a session's start a round trip each); a problem is still reported in the order below.
  const [configRead, cacheRead, agentsMdRead, vaultRead, schedulesRead] = await Promise.allSettled([
    readOptional(paths.systemConfig),
    readSystemConfigCache(paths.systemConfigCache),
    readOptional(paths.agentsMd),
    readVault(paths.vault),
    listSchedules(paths.scheduleDir),
  ]);
  const text = settledValue(configRead);
  if (text === undefined) {
    throw new ConfigError({
      file: paths.systemConfig,
      problem: "missing",
      hint: "restore it from a snapshot, or delete agent_state/ to recreate the defaults",
    });
  }
  const parsed = cachedSystemConfig(settledValue(cacheRead), text) ?? (await parseAndCache(text, paths));
  const config = parsed.name === "" ? { ...parsed, name: paths.agentId } : parsed;
  const agentsMd = settledValue(agentsMdRead) ?? "";
  const vault = settledValue(vaultRead);
  const skills = await listInstalledSkills(paths);
  return { paths, config, agentsMd, vault, skills, schedules: settledValue(schedulesRead) };
}

/** The slow path: the parser is loaded only now; its result is cached for the next start (a ConfigError caches nothing). */
async function parseAndCache(text: string, paths: AgentPaths): Promise<SystemConfig> {
  const { parseSystemConfig } = await import("./system-config.js");
  const config = parseSystemConfig(text, paths.systemConfig);
  await writeSystemConfigCache(paths.systemConfigCache, text, config);
  return config;
}

function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

async function ensureSkillsDir(paths: AgentPaths): Promise<void> {
  if (await exists(paths.skillsDir)) return;
  if (paths.agentId !== DEFAULT_AGENT) {
    await mkdir(paths.skillsDir, { recursive: true });
    return;
  }
  const staging = join(paths.agentState, `.skills-seed-${randomBytes(4).toString("hex")}`);
  try {
    await mkdir(staging);
    for (const skill of preinstalledLibrarySkills()) await copyDir(skill.dir, join(staging, skill.name));
    await rename(staging, paths.skillsDir);
  } catch (e) {
    // Another process seeded the folder first: theirs stands.
    if (!(await exists(paths.skillsDir))) throw e;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
