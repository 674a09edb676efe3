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
 * Validation is an effect/Schema (decoded once per file, stopping at the first problem);
 * every node carries a `message` annotation saying what it must be, and the yaml document
 * API maps the failing field's path back to its line. The schema is built on first use
 * (systemConfigSchema()), not when this module is evaluated: a start whose config comes from
 * the parse cache (system-config-cache.ts) never pays for it.
 */
import { yaml } from "./yaml-on-demand.js";
import { Either, ParseResult, Schema, SchemaAST } from "effect";
import { schemaProblems, type SchemaProblem } from "../schema-issues.js";
import { THINKING_LEVELS } from "@penguin/models";
import { ConfigError } from "./config-error.js";
import { CONFIG_DEFAULTS } from "./default-system-config.js";
import type { SystemConfig } from "./system-config-shape.js";
import { fieldName, lineOfPath, yamlSyntaxError } from "./yaml-location.js";
import { HOOK_EVENTS, HooksSchema, unknownHookEvents } from "../hooks/hook-config.js";

export type { CompactionMode, McpServerEntry, PromptSectionConfig, SystemConfig } from "./system-config-shape.js";

/** The `message` annotation: what a user reads after the field name when the value is wrong. */
const mustBe = (text: string) => ({ message: () => text });

const mapping = (text: string) => Schema.mutable(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations(mustBe(text));

/** A key that may be left out (or left empty): `value` then, read anew each time (the file is never rewritten). */
function orDefault<S extends Schema.Schema.AnyNoContext>(schema: S, value: Schema.Schema.Type<S>) {
  return Schema.optionalWith(schema, { default: () => value });
}

/** A mapping whose keys all have defaults: left out, it is every default. */
function section<Fields extends Schema.Struct.Fields>(fields: Fields, description: string) {
  const struct = Schema.Struct(fields).annotations({ ...mustBe("must be a mapping"), description });
  // Every field here is context-free; the generic Fields cannot say so, hence the cast.
  const defaults = Schema.decodeUnknownSync(struct as unknown as Schema.Schema<Schema.Struct.Type<Fields>>)({});
  return Schema.optionalWith(struct, { default: () => defaults });
}

/** The second entry with a name already used is the one reported, at its `name`. */
function repeatedServerName(servers: readonly { name: string }[]): Schema.FilterOutput {
  const seen = new Set<string>();
  for (const [i, server] of servers.entries()) {
    if (seen.has(server.name)) return { path: [i, "name"], message: `repeats the server name "${server.name}"` };
    seen.add(server.name);
  }
  return undefined;
}

const D = CONFIG_DEFAULTS;

/** The `description` annotation: what a field is for, shown by the generated configuration reference. */
const about = (description: string) => ({ description });

/** Builds the schema of system_config.yaml: every node of it is made here, on the first call only (see systemConfigSchema). */
function buildSystemConfigSchema() {
  const Text = Schema.String.annotations(mustBe("must be text"));
  const Flag = Schema.Boolean.annotations(mustBe("must be true or false"));
  const WholeNumber = Schema.Number.annotations(mustBe("must be a number")).pipe(Schema.int(mustBe("must be a whole number")));
  const Positive = WholeNumber.pipe(Schema.greaterThan(0, mustBe("must be greater than 0")));
  /** -1 = no limit, otherwise at least 1. */
  const Limit = WholeNumber.pipe(Schema.filter((n) => n === -1 || n >= 1, mustBe("must be -1 (no limit) or at least 1")));

  const promptSection = (prompt: string, description: string) =>
    section(
      {
        enabled: orDefault(Flag.annotations({ description: "Include this section in the system prompt." }), true),
        prompt: orDefault(Text.annotations({ description: "The section's text in the system prompt." }), prompt),
      },
      description,
    );

  const ToolDefinitionEntry = Schema.Struct({
    name: Text.pipe(Schema.minLength(1, mustBe("must not be empty"))).annotations({ description: "The tool's name as the model calls it." }),
    description: Text.annotations({ description: "What the tool does, as the model reads it." }),
    parameters: Schema.optional(mapping("must be a mapping (a JSON schema)").annotations({ description: "The JSON schema of the tool's arguments." })),
  }).annotations(mustBe("must be a mapping with name, description and parameters"));

  const McpServerConfigEntry = Schema.Struct({
    name: Text.pipe(Schema.pattern(/^[A-Za-z0-9_-]+$/, mustBe("must use only letters, digits, _ and -"))).annotations({
      description: "The server's name: its tools are called mcp__<name>__<tool>.",
    }),
    config: mapping("must be a mapping of transport settings").annotations({ description: "Transport settings: command, args, env, cwd (stdio) or url, headers (http, sse); transport, connectTimeoutMs (default 10000), permission (auto, r, rw)." }),
  }).annotations(mustBe("must be a mapping with name and config"));

  const McpServers = Schema.mutable(Schema.Array(McpServerConfigEntry))
    .annotations(mustBe("must be a list of { name, config } entries"))
    .pipe(Schema.filter(repeatedServerName));

  return Schema.Struct({
    name: orDefault(Text.annotations(about("Display name of the agent.")), ""),
    description: orDefault(Text.annotations(about("One line saying what this agent is for.")), ""),
    version: orDefault(Positive.annotations(about("Revision of this agent's state; raised by snapshots and the optimizer.")), D.version),
    kernel_version: orDefault(
      WholeNumber.pipe(Schema.greaterThanOrEqualTo(0, mustBe("must be 0 or more"))).annotations(about("Generation of the harness defaults the file was written from (0 = unknown).")),
      0,
    ),
    system_prompt: Text.annotations(about("The system prompt; {{PLACEHOLDERS}} such as {{AGENTS_MD}}, {{CWD}} and {{MODEL_ID}} are filled per session. The one required key.")),
    max_turns: orDefault(Limit.annotations(about("Maximum model requests per task; -1 = no limit.")), D.max_turns),
    model: section(
      {
        max_tokens: orDefault(Positive.annotations(about("Output token cap per request (also capped by the model's context window).")), D.model.max_tokens),
        thinking_level: orDefault(
          Schema.Literal(...THINKING_LEVELS).annotations({ ...mustBe(`must be one of ${THINKING_LEVELS.join(", ")}`), ...about("How much the model thinks before answering.") }),
          D.model.thinking_level,
        ),
        timeoutMs: orDefault(Positive.annotations(about("A request with no progress for this many milliseconds is retried.")), D.model.timeoutMs),
      },
      "Model request settings.",
    ),
    compaction: section(
      {
        max_context_length: orDefault(Positive.annotations(about("Compact when the context grows past this many tokens.")), D.compaction.max_context_length),
        max_session_turns: orDefault(Limit.annotations(about("Compact after this many requests in one context; -1 = only by size.")), D.compaction.max_session_turns),
        mode: orDefault(
          Schema.Literal("summarize", "discard").annotations({ ...mustBe("must be summarize or discard"), ...about("summarize replaces the history by a summary; discard starts from an empty context.") }),
          D.compaction.mode,
        ),
        prompt: orDefault(Text.annotations(about("Sent to the model to write the summary (summarize mode).")), D.compaction.prompt),
      },
      "Context compaction: when and how the history is shortened.",
    ),
    memory: section(
      {
        enabled: orDefault(Flag.annotations(about("Include the memory section in the system prompt.")), D.memory.enabled),
        prompt: orDefault(Text.annotations(about("The user-wide memory section ({{MEMORY_DIR}}, {{MEMORY_INDEX}}).")), D.memory.prompt),
        workspace_prompt: orDefault(Text.annotations(about("The memory section of the current workspace (same placeholders).")), D.memory.workspace_prompt),
      },
      "Persistent memory in agent_state/memory/.",
    ),
    vault: promptSection(D.vault.prompt, "Secrets in .vault.toml reach commands as environment variables; the prompt lists names only ({{VAULT_KEYS}})."),
    skills: promptSection(D.skills.prompt, "Installed skills in agent_state/skills/; the prompt lists one line per skill ({{SKILL_METADATA}})."),
    schedules: promptSection(D.schedules.prompt, "Scheduled tasks in agent_state/schedule/*.toml, run by the server ({{SCHEDULE_LIST}})."),
    tools: section(
      {
        builtin: Schema.optional(
          Schema.mutable(Schema.Array(ToolDefinitionEntry)).annotations({ ...mustBe("must be a list of tool definitions"), ...about("A full list of tool definitions that replaces the default tools; leave it out to keep them.") }),
        ),
        mcpServers: orDefault(McpServers.annotations(about("MCP servers whose tools appear as mcp__<name>__<tool>; config is { command, args } (stdio) or { url }.")), []),
        exec: Schema.optional(
          Schema.Struct({ loginShell: orDefault(Flag.annotations(about("Source the login profile for every command (bash -lc) instead of capturing its environment once.")), false) }).annotations({
            ...mustBe("must be a mapping (loginShell: true or false)"),
            ...about("How commands are started."),
          }),
        ),
      },
      "The tools the model gets.",
    ),
    /** Lifecycle hooks in Claude Code's shape (hooks/hook-config.ts); absent = none. */
    hooks: Schema.optional(Schema.mutable(HooksSchema).annotations(about("Lifecycle hooks (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop, SubagentStop) in Claude Code's settings shape; absent = none."))),
  });
}

type SystemConfigSchemaType = ReturnType<typeof buildSystemConfigSchema>;
let builtSchema: SystemConfigSchemaType | undefined;

/**
 * The schema of system_config.yaml, built on the first call and kept. Exported for the
 * documentation generator (apps/docs), which walks its AST (every field carries a
 * `description`, and the defaults are what decoding fills in), and for the parse cache's
 * generation pin (test/state/system-config-cache.test.ts).
 */
export function systemConfigSchema(): SystemConfigSchemaType {
  builtSchema ??= buildSystemConfigSchema();
  return builtSchema;
}

let builtDecoder: ((input: unknown) => Either.Either<SystemConfig, ParseResult.ParseError>) | undefined;

/** Made once, on first use: decoding stops at the first problem, unknown keys are dropped. */
function decodeSystemConfig(input: unknown): Either.Either<SystemConfig, ParseResult.ParseError> {
  builtDecoder ??= Schema.decodeUnknownEither(systemConfigSchema(), { errors: "first", onExcessProperty: "ignore" });
  return builtDecoder(input);
}

/** What the failing node says it must be: a filter's own words, its `message` annotation, or effect's wording. */
function mustBeOf(problem: SchemaProblem): string {
  if (problem.message !== undefined) return problem.message;
  const annotation = SchemaAST.getMessageAnnotation(problem.ast);
  if (annotation._tag === "Some") {
    const said = annotation.value(problem.issue);
    if (typeof said === "string") return said;
    if (typeof said === "object" && "message" in said && typeof said.message === "string") return said.message;
  }
  return ParseResult.TreeFormatter.formatIssueSync(problem.issue);
}

/** Parses and validates a system_config.yaml text. `file` is used in error messages only. */
export function parseSystemConfig(text: string, file: string): SystemConfig {
  const { isMap, LineCounter, parseDocument } = yaml();
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
  // Unknown keys are ignored elsewhere, but a misspelt hook event would silently turn a guard off.
  const strayEvent = isRecord(raw) ? unknownHookEvents(raw.hooks)[0] : undefined;
  if (strayEvent !== undefined) {
    const line = lineOfPath(doc.contents, lineCounter, ["hooks", strayEvent]);
    throw new ConfigError({
      file,
      ...(line !== undefined ? { line } : {}),
      field: `hooks.${strayEvent}`,
      problem: `is not a hook event this harness runs (it runs ${HOOK_EVENTS.join(", ")})`,
      hint: "rename it to one of those events, or remove it",
    });
  }
  const result = decodeSystemConfig(raw);
  if (Either.isRight(result)) {
    const config: SystemConfig = result.right;
    return config;
  }

  const first = schemaProblems(result.left)[0];
  const path = first?.path ?? [];
  const value = valueAt(raw, path);
  const line = lineOfPath(doc.contents, lineCounter, path);
  const problem =
    value === undefined || first?.kind === "missing"
      ? "is missing (it is required)"
      : `${first === undefined ? "is invalid" : mustBeOf(first)}, got ${describe(value)}`;
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
