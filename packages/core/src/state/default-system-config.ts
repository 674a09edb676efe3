/**
 * The defaults of system_config.yaml (SPEC §6) and the commented file a new agent starts with.
 *
 * `CONFIG_DEFAULTS` is what a missing key falls back to when the file is read
 * (system-config.ts); `defaultSystemConfigYaml` writes the same values out, each with a
 * comment saying what it does, so a user can edit the file without reading any docs.
 * Long texts are YAML literal blocks (`|`), so the prompts on disk look exactly as the model
 * sees them. Bump `KERNEL_VERSION` whenever a default here changes, so a later "kernel
 * update" can tell which fields still hold an old default.
 */
import { yaml } from "./yaml-on-demand.js";
import { DEFAULT_AGENT } from "./paths.js";
import type { SystemConfig } from "./system-config-shape.js";
import { DEFAULT_SYSTEM_PROMPT } from "./default-system-prompt.js";
import {
  DEFAULT_COMPACTION_PROMPT,
  DEFAULT_MEMORY_PROMPT,
  DEFAULT_MEMORY_WORKSPACE_PROMPT,
  DEFAULT_SCHEDULES_PROMPT,
  DEFAULT_SKILLS_PROMPT,
  DEFAULT_VAULT_PROMPT,
} from "./default-section-prompts.js";

/** The generation of the defaults below. */
export const KERNEL_VERSION = 1;

export type ConfigDefaults = Omit<SystemConfig, "name" | "description" | "system_prompt" | "kernel_version">;

export const CONFIG_DEFAULTS: ConfigDefaults = {
  version: 1,
  max_turns: -1,
  model: { max_tokens: 32000, thinking_level: "medium", timeoutMs: 120000 },
  compaction: { max_context_length: 256000, max_session_turns: -1, mode: "summarize", prompt: DEFAULT_COMPACTION_PROMPT },
  memory: { enabled: true, prompt: DEFAULT_MEMORY_PROMPT, workspace_prompt: DEFAULT_MEMORY_WORKSPACE_PROMPT },
  vault: { enabled: true, prompt: DEFAULT_VAULT_PROMPT },
  skills: { enabled: true, prompt: DEFAULT_SKILLS_PROMPT },
  schedules: { enabled: true, prompt: DEFAULT_SCHEDULES_PROMPT },
  tools: { mcpServers: [] },
};

/** The full config a new agent gets. */
export function defaultSystemConfig(agentId: string): SystemConfig {
  return {
    name: agentId,
    description:
      agentId === DEFAULT_AGENT
        ? "The default PenguinHarness agent, for coding and general work."
        : `The ${agentId} agent.`,
    version: CONFIG_DEFAULTS.version,
    kernel_version: KERNEL_VERSION,
    system_prompt: DEFAULT_SYSTEM_PROMPT,
    max_turns: CONFIG_DEFAULTS.max_turns,
    model: { ...CONFIG_DEFAULTS.model },
    compaction: { ...CONFIG_DEFAULTS.compaction },
    memory: { ...CONFIG_DEFAULTS.memory },
    vault: { ...CONFIG_DEFAULTS.vault },
    skills: { ...CONFIG_DEFAULTS.skills },
    schedules: { ...CONFIG_DEFAULTS.schedules },
    tools: { mcpServers: [] },
  };
}

const HEADER = [
  " system_config.yaml: how this agent behaves. Changes apply to sessions started after the edit.",
  " Delete a key to fall back to its built-in default; only system_prompt is required.",
  " Prompts may use {{PLACEHOLDERS}}; they are filled when a session starts (see system_prompt).",
].join("\n");

/** Comments above keys, by dotted path. */
const COMMENTS: Record<string, string> = {
  name: " Display name of the agent.",
  description: " One line saying what this agent is for.",
  version: " Revision of this agent's state; raised by snapshots and the optimizer.",
  kernel_version: " Generation of the harness defaults this file was written from. Leave as is.",
  system_prompt: [
    " The system prompt. Placeholders filled per session:",
    "   {{AGENTS_MD}} AGENTS.md as written; {{VAULT}} {{SKILLS}} {{MEMORY}} {{SCHEDULES}} the sections below",
    "   (empty when disabled); {{PLATFORM}} {{OS_VERSION}} {{SHELL}} {{DATE}} {{PROJECT_DIR}} {{AGENT_ID}}",
    "   {{CWD}} (the workspace) {{PROVIDER}} {{MODEL_ID}} {{SESSION_ID}}.",
    " Text coming from files (AGENTS.md, skills, memory) is inserted as is, never expanded again.",
  ].join("\n"),
  max_turns: " Maximum model requests per task; -1 = no limit.",
  model: " Model request settings. thinking_level: none | low | medium | high | xhigh | max.",
  "model.max_tokens": " Output token cap per request (also capped by the model's context window).",
  "model.timeoutMs": " A request with no progress for this long is retried.",
  compaction: [
    " Context compaction: when the context grows past max_context_length tokens (or after",
    " max_session_turns requests), the history is summarized or discarded.",
  ].join("\n"),
  "compaction.max_session_turns": " Compact after this many requests in one context; -1 = only by size.",
  "compaction.mode": " summarize = replace the history by a summary; discard = start from an empty context.",
  "compaction.prompt": " Sent to the model to write the summary (summarize mode).",
  memory: " Persistent memory in agent_state/memory/. prompt: the user-wide scope ({{MEMORY_DIR}},\n {{MEMORY_INDEX}}); workspace_prompt: the scope of the current workspace (same placeholders).",
  vault: " Secrets in .vault.toml reach commands as environment variables; the prompt lists names\n only ({{VAULT_KEYS}}), never values.",
  skills: " Installed skills in agent_state/skills/; the prompt lists one line per skill ({{SKILL_METADATA}}).",
  schedules: " Scheduled tasks in agent_state/schedule/*.toml, run by the server ({{SCHEDULE_LIST}}).",
  tools: [
    " Tools. builtin: a full list of tool definitions that replaces the default tools (leave it out",
    " to keep the defaults). mcpServers: MCP servers whose tools appear as mcp__<name>__<tool>, e.g.",
    "   mcpServers:",
    "     - name: files",
    "       config: { command: npx, args: [some-mcp-server] }   # stdio; or { url: https://host/mcp }",
    " exec: { loginShell: true } sources the login profile for every command (bash -lc), as before;",
    " by default the login shell's environment is captured once per session and commands run bash -c.",
  ].join("\n"),
};

/** The text of a fresh system_config.yaml, with comments. */
export function defaultSystemConfigYaml(agentId: string): string {
  const doc = new (yaml().Document)(defaultSystemConfig(agentId));
  doc.commentBefore = HEADER;
  annotate(doc.contents, "");
  return doc.toString({ blockQuote: "literal", lineWidth: 0 });
}

function annotate(node: unknown, prefix: string): void {
  const { isMap, isScalar } = yaml();
  if (!isMap(node)) return;
  node.items.forEach((pair, i) => {
    if (!isScalar(pair.key)) return;
    const path = prefix === "" ? String(pair.key.value) : `${prefix}.${String(pair.key.value)}`;
    const comment = COMMENTS[path];
    if (comment !== undefined) pair.key.commentBefore = comment;
    if (prefix === "" && i > 0) pair.key.spaceBefore = true;
    annotate(pair.value, path);
  });
}

/** The AGENTS.md a new agent starts with. */
export const DEFAULT_AGENTS_MD = `# Agent instructions

<!-- This file is added to the system prompt of every session of this agent, inside a
[developer_instructions] block. Write here what you would otherwise repeat in each chat:
project conventions, preferred tools and languages, things to always or never do.
It is used exactly as written. -->
`;
