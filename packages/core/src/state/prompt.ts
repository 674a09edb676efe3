/**
 * System prompt assembly: `system_config.yaml`'s `system_prompt` with every placeholder filled
 * (SPEC §6).
 *
 *   {{AGENTS_MD}}                      AGENTS.md, as written, then the workspace's own
 *                                      (project-instructions.ts)
 *   {{VAULT}} {{SKILLS}} {{MEMORY}} {{SCHEDULES}}
 *                                      the section prompts, each with its own list filled
 *                                      ({{VAULT_KEYS}} {{SKILL_METADATA}} {{SCHEDULE_LIST}},
 *                                      memory: {{MEMORY_DIR}} {{MEMORY_INDEX}}); "" when the
 *                                      section is disabled
 *   {{PLATFORM}} {{OS_VERSION}} {{SHELL}} {{DATE}} {{PROJECT_DIR}} {{AGENT_ID}} {{CWD}}
 *   {{PROVIDER}} {{MODEL_ID}} {{SESSION_ID}}   the environment of this session
 *
 * Section values are built first; then the template is filled in a single pass
 * (prompt-template.ts), so the sections effectively expand last and nothing that came from
 * a file is ever expanded again. Vault values never get here: the vault section sees
 * `Object.keys(state.vault)` only. Host facts are a parameter so tests are deterministic.
 */
import { release, type as osType } from "node:os";
import type { AgentState } from "./agent-state.js";
import { localDate } from "./ids.js";
import { userMemoryDir, type MemoryIndex } from "./memory.js";
import { fillPlaceholders } from "./prompt-template.js";
import { withProjectInstructions, type InstructionFile } from "./project-instructions.js";
import { renderMemoryIndex, renderScheduleList, renderSkillMetadata, renderVaultKeys } from "./prompt-sections.js";

export interface HostInfo {
  platform: string;
  osVersion: string;
  shell: string;
}

export interface PromptContext {
  /** The session's workspace folder ({{CWD}}). */
  workspace: string;
  provider: string;
  modelId: string;
  sessionId: string;
  now: Date;
  memory: MemoryIndex;
  /** Defaults to this machine (`currentHost()`). */
  host?: HostInfo;
  /** The workspace's AGENTS.md/CLAUDE.md files, outermost first, added after the agent's AGENTS.md. */
  projectInstructions?: readonly InstructionFile[];
}

export function currentHost(env: NodeJS.ProcessEnv = process.env): HostInfo {
  const shell = env.SHELL ?? (process.platform === "win32" ? (env.ComSpec ?? "cmd.exe") : "/bin/sh");
  return { platform: process.platform, osVersion: `${osType()} ${release()}`, shell };
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function assembleSystemPrompt(state: AgentState, ctx: PromptContext): string {
  const { config, paths } = state;
  const host = ctx.host ?? currentHost();
  const environment: Record<string, string> = {
    PLATFORM: host.platform,
    OS_VERSION: host.osVersion,
    SHELL: host.shell,
    DATE: `${localDate(ctx.now)} (${WEEKDAYS[ctx.now.getDay()] ?? ""})`,
    PROJECT_DIR: paths.projectDir,
    AGENT_ID: paths.agentId,
    CWD: ctx.workspace,
    PROVIDER: ctx.provider,
    MODEL_ID: ctx.modelId,
    SESSION_ID: ctx.sessionId,
  };

  const lists: Record<string, string> = {
    VAULT_KEYS: config.vault.enabled ? renderVaultKeys(Object.keys(state.vault)) : "",
    SKILL_METADATA: config.skills.enabled ? renderSkillMetadata(state.skills) : "",
    SCHEDULE_LIST: config.schedules.enabled ? renderScheduleList(state.schedules) : "",
  };

  const section = (enabled: boolean, prompt: string, own: Record<string, string>): string =>
    enabled ? fillPlaceholders(prompt, { ...environment, ...own }).trimEnd() : "";

  const sections: Record<string, string> = {
    VAULT: section(config.vault.enabled, config.vault.prompt, { VAULT_KEYS: lists.VAULT_KEYS ?? "" }),
    SKILLS: section(config.skills.enabled, config.skills.prompt, { SKILL_METADATA: lists.SKILL_METADATA ?? "" }),
    SCHEDULES: section(config.schedules.enabled, config.schedules.prompt, { SCHEDULE_LIST: lists.SCHEDULE_LIST ?? "" }),
    MEMORY: memorySection(state, ctx.memory, environment),
  };

  return fillPlaceholders(config.system_prompt, {
    ...environment,
    ...lists,
    ...sections,
    AGENTS_MD: withProjectInstructions(state.agentsMd, ctx.projectInstructions ?? []),
  });
}

function memorySection(state: AgentState, memory: MemoryIndex, environment: Record<string, string>): string {
  const { config, paths } = state;
  if (!config.memory.enabled) return "";
  const parts = [
    fillPlaceholders(config.memory.prompt, {
      ...environment,
      MEMORY_DIR: userMemoryDir(paths),
      MEMORY_INDEX: renderMemoryIndex(memory.user),
    }).trimEnd(),
  ];
  if (memory.workspaceScopeDir !== undefined) {
    parts.push(
      fillPlaceholders(config.memory.workspace_prompt, {
        ...environment,
        MEMORY_DIR: memory.workspaceScopeDir,
        MEMORY_INDEX: renderMemoryIndex(memory.workspace),
      }).trimEnd(),
    );
  }
  return parts.filter((part) => part !== "").join("\n\n");
}

