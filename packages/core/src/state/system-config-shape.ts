/**
 * SystemConfig: the shape of an agent's system_config.yaml once read, every default filled in.
 * A type module of its own because the parser (system-config.ts) fills in the defaults of
 * default-system-config.ts, whose values are typed by this shape: kept in the parser, the two
 * files imported each other.
 */
import type { ThinkingLevel } from "@penguin/models";
import type { ToolDefinition } from "@penguin/omnimessage";
import type { HooksConfig } from "../hooks/hook-config.js";

export type CompactionMode = "summarize" | "discard";

/** A prompt section the system prompt can include; `enabled: false` drops it from the prompt. */
export interface PromptSectionConfig {
  enabled: boolean;
  prompt: string;
}

export interface McpServerEntry {
  name: string;
  /** Transport settings, read by the MCP client (`stdio` / `http` / `sse`). */
  config: Record<string, unknown>;
}

export interface SystemConfig {
  name: string;
  description: string;
  /** The agent's own revision, bumped by the optimizer and snapshots. */
  version: number;
  /** The default-config generation this file was written from (0 = unknown). */
  kernel_version: number;
  system_prompt: string;
  /** Maximum model requests per task; -1 = no limit. */
  max_turns: number;
  model: { max_tokens: number; thinking_level: ThinkingLevel; timeoutMs: number };
  compaction: { max_context_length: number; max_session_turns: number; mode: CompactionMode; prompt: string };
  memory: { enabled: boolean; prompt: string; workspace_prompt: string };
  vault: PromptSectionConfig;
  skills: PromptSectionConfig;
  schedules: PromptSectionConfig;
  /**
   * `builtin`, when set, replaces the default tool list wholesale. `exec.loginShell: true`
   * runs every command in a login shell (`bash -lc`, the profile sourced each time) instead of
   * `bash -c` in the login environment captured once per session; absent means false.
   */
  tools: { builtin?: ToolDefinition[]; mcpServers: McpServerEntry[]; exec?: { loginShell: boolean } };
  /** Lifecycle hooks (SessionStart, PreToolUse, …) in Claude Code's settings shape; absent = none. */
  hooks?: HooksConfig;
}
