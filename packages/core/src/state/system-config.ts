/**
 * system_config.yaml → SystemConfig: the agent's behaviour (prompt, limits, model settings,
 * compaction, prompt-section toggles, tools), validated, with every missing key filled from
 * the defaults (SPEC §6).
 *
 * Rules:
 * - The file on disk is never merged or rewritten: a key the user deleted falls back to its
 *   default here, when read, so later default changes reach it.
 * - A key written with no value (`max_turns:`) counts as deleted. Unknown keys are ignored
 *   so a config written by a newer harness still loads.
 * - `system_prompt` is the one required key: there is no sensible agent without it.
 * - Any problem is a ConfigError naming the file, the line and the field (the first one
 *   found), so a session never starts on a half-understood config.
 * Validation is a zod schema; the yaml document API maps a field path back to its line.
 */
import { isMap, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { THINKING_LEVELS, type ThinkingLevel } from "@penguin/models";
import type { ToolDefinition } from "@penguin/omnimessage";
import { ConfigError } from "./config-error.js";
import { CONFIG_DEFAULTS } from "./default-system-config.js";
import { fieldName, lineOfPath, yamlSyntaxError } from "./yaml-location.js";

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
  /** `builtin`, when set, replaces the default tool list wholesale. */
  tools: { builtin?: ToolDefinition[]; mcpServers: McpServerEntry[] };
}

const wholeNumber = () => z.number("must be a number").int("must be a whole number");
const positive = () => wholeNumber().positive("must be greater than 0");
/** -1 = no limit, otherwise at least 1. */
const limit = () => wholeNumber().refine((n) => n === -1 || n >= 1, "must be -1 (no limit) or at least 1");
const text = () => z.string("must be text");
const flag = () => z.boolean("must be true or false");
const section = (prompt: string) => z.object({ enabled: flag().default(true), prompt: text().default(prompt) }, "must be a mapping").prefault({});

const toolDefinition = z.object(
  {
    name: text().min(1, "must not be empty"),
    description: text(),
    parameters: z.record(z.string(), z.unknown(), "must be a mapping (a JSON schema)").optional(),
  },
  "must be a mapping with name, description and parameters",
);

const mcpServer = z.object(
  {
    name: text().regex(/^[A-Za-z0-9_-]+$/, "must use only letters, digits, _ and -"),
    config: z.record(z.string(), z.unknown(), "must be a mapping of transport settings"),
  },
  "must be a mapping with name and config",
);

const D = CONFIG_DEFAULTS;

const schema = z.object({
  name: text().default(""),
  description: text().default(""),
  version: positive().default(D.version),
  kernel_version: wholeNumber().min(0, "must be 0 or more").default(0),
  system_prompt: text(),
  max_turns: limit().default(D.max_turns),
  model: z
    .object(
      {
        max_tokens: positive().default(D.model.max_tokens),
        thinking_level: z.enum(THINKING_LEVELS, `must be one of ${THINKING_LEVELS.join(", ")}`).default(D.model.thinking_level),
        timeoutMs: positive().default(D.model.timeoutMs),
      },
      "must be a mapping",
    )
    .prefault({}),
  compaction: z
    .object(
      {
        max_context_length: positive().default(D.compaction.max_context_length),
        max_session_turns: limit().default(D.compaction.max_session_turns),
        mode: z.enum(["summarize", "discard"], "must be summarize or discard").default(D.compaction.mode),
        prompt: text().default(D.compaction.prompt),
      },
      "must be a mapping",
    )
    .prefault({}),
  memory: z
    .object(
      {
        enabled: flag().default(D.memory.enabled),
        prompt: text().default(D.memory.prompt),
        workspace_prompt: text().default(D.memory.workspace_prompt),
      },
      "must be a mapping",
    )
    .prefault({}),
  vault: section(D.vault.prompt),
  skills: section(D.skills.prompt),
  schedules: section(D.schedules.prompt),
  tools: z
    .object(
      {
        builtin: z.array(toolDefinition, "must be a list of tool definitions").optional(),
        mcpServers: z
          .array(mcpServer, "must be a list of { name, config } entries")
          .default([])
          .superRefine((servers, ctx) => {
            const seen = new Set<string>();
            servers.forEach((server, i) => {
              if (seen.has(server.name)) ctx.addIssue({ code: "custom", message: `repeats the server name "${server.name}"`, path: [i, "name"] });
              seen.add(server.name);
            });
          }),
      },
      "must be a mapping",
    )
    .prefault({}),
});

/** Parses and validates a system_config.yaml text. `file` is used in error messages only. */
export function parseSystemConfig(text: string, file: string): SystemConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) throw yamlSyntaxError(file, syntax);
  if (!isMap(doc.contents)) {
    throw new ConfigError({
      file,
      line: 1,
      problem: doc.contents === null ? "the file is empty" : "must be a mapping of `key: value` lines",
      hint: "restore the default system_config.yaml, or write at least `system_prompt: |` followed by the prompt",
    });
  }

  const raw = dropEmptyKeys(doc.toJS());
  const result = schema.safeParse(raw);
  if (result.success) {
    const config: SystemConfig = result.data;
    return config;
  }

  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const value = valueAt(raw, path);
  const line = lineOfPath(doc.contents, lineCounter, path);
  const problem = value === undefined ? "is missing (it is required)" : `${issue?.message ?? "is invalid"}, got ${describe(value)}`;
  throw new ConfigError({
    file,
    ...(line !== undefined ? { line } : {}),
    ...(path.length > 0 ? { field: fieldName(path) } : {}),
    problem,
  });
}

/** Keys with an empty value, at the top level and inside top-level mappings, count as absent. */
function dropEmptyKeys(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === null) continue;
    out[key] = isRecord(inner) ? Object.fromEntries(Object.entries(inner).filter(([, v]) => v !== null)) : inner;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const segment of path) {
    if (Array.isArray(node) && typeof segment === "number") node = node[segment];
    else if (isRecord(node) && typeof segment === "string") node = node[segment];
    else return undefined;
  }
  return node;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return `the text "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === "object" && v !== null) return "a mapping";
  return String(v);
}
