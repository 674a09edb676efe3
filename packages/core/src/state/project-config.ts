/**
 * `.project_config.toml`: a project's model table, credentials and defaults (mode 0600).
 *
 *   name = "default_project"
 *   [default_model]   provider, model_id
 *   [vision_model]    provider, model_id
 *   [default_chat]    agent_id, workspace, approval_mode, thinking_level
 *   [command_policy]  enabled, [[command_policy.rules]] name, pattern, description, enabled
 *   [[models]]        provider, model_id, client_type, base_url, api_key, keyless,
 *                     context_window, max_tokens, display_name, vision, fast_mode,
 *                     pricing{unit, cache_read, cache_write, output}
 *
 * `keyless = true` marks an endpoint that takes no key (a local Ollama or vLLM): no key is
 * sent, not even one from the environment.
 *
 * A model is always the explicit (provider, model_id) pair: never concatenated, never
 * inferred. Parsing is strict about types and names the file, line and field of the first
 * problem; a missing file is an empty config. Writes are atomic (temp file + rename) and the
 * file is created 0600 because it holds API keys.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse as parseToml, stringify as stringifyToml, TomlError } from "smol-toml";
import { CLIENT_TYPES, THINKING_LEVELS, type ClientType, type Pricing, type ThinkingLevel } from "@penguin/models";
import { ConfigError } from "./config-error.js";
import { APPROVAL_MODES, checkParsedProjectConfig } from "./project-config-schema.js";

export interface ModelRef {
  provider: string;
  model_id: string;
}

export interface ModelEntry extends ModelRef {
  client_type?: ClientType;
  base_url?: string;
  api_key?: string;
  /** The endpoint takes no API key (local servers); none is sent, not even from the environment. */
  keyless?: boolean;
  context_window?: number;
  max_tokens?: number;
  display_name?: string;
  vision?: boolean;
  fast_mode?: boolean;
  pricing?: Pricing;
}

export interface DefaultChat {
  agent_id?: string;
  workspace?: string;
  approval_mode?: string;
  thinking_level?: ThinkingLevel;
}

export interface PolicyRule {
  name: string;
  pattern: string;
  description?: string;
  enabled?: boolean;
}

export interface ProjectConfig {
  name?: string;
  default_model?: ModelRef;
  vision_model?: ModelRef;
  default_chat?: DefaultChat;
  command_policy?: { enabled: boolean; rules: PolicyRule[] };
  models: ModelEntry[];
}

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Reads fields of one TOML table with type checks that name the field on failure. */
class FieldReader {
  constructor(
    private readonly file: string,
    private readonly lineOf: (path: string) => number | undefined,
    private readonly table: Table,
    private readonly path: string,
  ) {}

  #fail(key: string, problem: string): never {
    const field = this.path === "" ? key : `${this.path}.${key}`;
    throw new ConfigError({ file: this.file, line: this.lineOf(key), field, problem, hint: "fix the value in the file, or remove the key to use the default" });
  }

  string(key: string, required: true): string;
  string(key: string, required?: false): string | undefined;
  string(key: string, required = false): string | undefined {
    const v = this.table[key];
    if (v === undefined) return required ? this.#fail(key, "is required") : undefined;
    if (typeof v !== "string") return this.#fail(key, `must be a string, got ${describe(v)}`);
    if (required && v.trim() === "") return this.#fail(key, "must not be empty");
    return v;
  }

  number(key: string): number | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v)) return this.#fail(key, `must be a number, got ${describe(v)}`);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") return this.#fail(key, `must be true or false, got ${describe(v)}`);
    return v;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const v = this.string(key);
    if (v === undefined) return undefined;
    const hit = allowed.find((a) => a === v);
    if (hit === undefined) return this.#fail(key, `must be one of ${allowed.join(", ")}, got "${v}"`);
    return hit;
  }

  table_(key: string): Table | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (!isTable(v)) return this.#fail(key, `must be a table, got ${describe(v)}`);
    return v;
  }

  tables(key: string): Table[] {
    const v = this.table[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every(isTable)) return this.#fail(key, `must be an array of tables ([[${key}]])`);
    return v;
  }

  child(key: string, table: Table): FieldReader {
    return new FieldReader(this.file, this.lineOf, table, this.path === "" ? key : `${this.path}.${key}`);
  }
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  if (v instanceof Date) return "a date";
  return typeof v === "string" ? `"${v}"` : typeof v === "object" && v !== null ? "a table" : String(v);
}

/** A best-effort line lookup: the first line that assigns `key` (for error messages only). */
function lineFinder(text: string): (key: string) => number | undefined {
  const lines = text.split("\n");
  return (key) => {
    const re = new RegExp(`^\\s*"?${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"?\\s*=`);
    const i = lines.findIndex((l) => re.test(l));
    return i >= 0 ? i + 1 : undefined;
  };
}

function readRef(r: FieldReader, key: string): ModelRef | undefined {
  const t = r.table_(key);
  if (t === undefined) return undefined;
  const c = r.child(key, t);
  return { provider: c.string("provider", true), model_id: c.string("model_id", true) };
}

function readModel(r: FieldReader): ModelEntry {
  const entry: ModelEntry = { provider: r.string("provider", true), model_id: r.string("model_id", true) };
  const clientType = r.string("client_type");
  if (clientType !== undefined) {
    // `openai` is the legacy spelling of openai-chat; `ant-messages` the reference's name.
    const normalized = clientType === "openai" ? "openai-chat" : clientType === "ant-messages" ? "anthropic-messages" : clientType;
    const hit = CLIENT_TYPES.find((c) => c === normalized);
    if (hit === undefined) r.oneOf("client_type", CLIENT_TYPES);
    else entry.client_type = hit;
  }
  const set = <K extends keyof ModelEntry>(k: K, v: ModelEntry[K] | undefined) => {
    if (v !== undefined) entry[k] = v;
  };
  set("base_url", r.string("base_url"));
  set("api_key", r.string("api_key"));
  set("keyless", r.boolean("keyless"));
  set("context_window", r.number("context_window"));
  set("max_tokens", r.number("max_tokens"));
  set("display_name", r.string("display_name"));
  set("vision", r.boolean("vision"));
  set("fast_mode", r.boolean("fast_mode"));
  const pricing = r.table_("pricing");
  if (pricing !== undefined) {
    const p = r.child("pricing", pricing);
    const out: Pricing = { unit: "usd_per_mtok" };
    const unit = p.string("unit");
    if (unit !== undefined && unit !== "usd_per_mtok") p.oneOf("unit", ["usd_per_mtok"] as const);
    const cr = p.number("cache_read");
    const cw = p.number("cache_write");
    const o = p.number("output");
    if (cr !== undefined) out.cache_read = cr;
    if (cw !== undefined) out.cache_write = cw;
    if (o !== undefined) out.output = o;
    entry.pricing = out;
  }
  return entry;
}

/** Parse the file's text. Throws ConfigError naming file, line and field. */
export function parseProjectConfig(text: string, file: string): ProjectConfig {
  let raw: Table;
  try {
    raw = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new ConfigError({ file, line: error.line, column: error.column, problem: `is not valid TOML: ${error.message.split("\n")[0]}` });
    }
    throw new ConfigError({ file, problem: `could not be parsed: ${String(error)}` });
  }
  const r = new FieldReader(file, lineFinder(text), { ...raw }, "");
  const config: ProjectConfig = { models: [] };
  const name = r.string("name");
  if (name !== undefined) config.name = name;
  const dm = readRef(r, "default_model");
  if (dm) config.default_model = dm;
  const vm = readRef(r, "vision_model");
  if (vm) config.vision_model = vm;
  const chat = r.table_("default_chat");
  if (chat !== undefined) {
    const c = r.child("default_chat", chat);
    const dc: DefaultChat = {};
    const agent = c.string("agent_id");
    const ws = c.string("workspace");
    const mode = c.oneOf("approval_mode", APPROVAL_MODES);
    const level = c.oneOf("thinking_level", THINKING_LEVELS);
    if (agent !== undefined) dc.agent_id = agent;
    if (ws !== undefined) dc.workspace = ws;
    if (mode !== undefined) dc.approval_mode = mode;
    if (level !== undefined) dc.thinking_level = level;
    config.default_chat = dc;
  }
  const policy = r.table_("command_policy");
  if (policy !== undefined) {
    const p = r.child("command_policy", policy);
    config.command_policy = {
      enabled: p.boolean("enabled") ?? true,
      rules: p.tables("rules").map((t, i) => {
        const rr = p.child(`rules[${i}]`, t);
        const rule: PolicyRule = { name: rr.string("name", true), pattern: rr.string("pattern", true) };
        const d = rr.string("description");
        const e = rr.boolean("enabled");
        if (d !== undefined) rule.description = d;
        if (e !== undefined) rule.enabled = e;
        return rule;
      }),
    };
  }
  config.models = r.tables("models").map((t, i) => readModel(r.child(`models[${i}]`, t)));
  const seen = new Set<string>();
  for (const [i, m] of config.models.entries()) {
    const key = `${m.provider}\u0000${m.model_id}`;
    if (seen.has(key)) {
      throw new ConfigError({ file, field: `models[${i}]`, problem: `duplicate model entry ${m.provider}/${m.model_id}`, hint: "keep one [[models]] entry per (provider, model_id) pair" });
    }
    seen.add(key);
  }
  // The documented shape (project-config-schema.ts) must hold every field read above.
  checkParsedProjectConfig(config);
  return config;
}

/** Read the file; a missing file is an empty config. */
export function readProjectConfig(file: string): ProjectConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { models: [] };
    throw new ConfigError({ file, problem: `cannot be read: ${String(error)}` });
  }
  return parseProjectConfig(text, file);
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (isTable(v)) {
    const out: Table = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = dropUndefined(x);
    return out;
  }
  return v;
}

export function serializeProjectConfig(config: ProjectConfig): string {
  const ordered: Table = {
    name: config.name,
    default_model: config.default_model,
    vision_model: config.vision_model,
    default_chat: config.default_chat,
    command_policy: config.command_policy,
    models: config.models.length > 0 ? config.models : undefined,
  };
  const body = stringifyToml(dropUndefined(ordered) as Table);
  return `# PenguinHarness project configuration. Holds API keys: keep it private (mode 0600).\n${body}\n`;
}

/** Atomic write with mode 0600. */
export function writeProjectConfig(file: string, config: ProjectConfig): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, serializeProjectConfig(config), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

// --- pure edits ---------------------------------------------------------------------------------

export function sameRef(a: ModelRef, b: ModelRef): boolean {
  return a.provider === b.provider && a.model_id === b.model_id;
}

export function findModel(config: ProjectConfig, ref: ModelRef): ModelEntry | undefined {
  return config.models.find((m) => sameRef(m, ref));
}

/** Add or replace the entry with the same pair. */
export function upsertModel(config: ProjectConfig, entry: ModelEntry): ProjectConfig {
  const models = config.models.filter((m) => !sameRef(m, entry));
  return { ...config, models: [...models, entry] };
}

/**
 * The default-model rule the CLI and the server share: a table without a default takes the first
 * model added to it as its default. Returns that model's pair (the first entry of `next` that
 * `before` did not have) when `before` had no default and `next` names none; else undefined.
 * Removing the default model clears it instead (removeModel): the next add fills it again.
 */
export function firstAddedDefault(before: ProjectConfig, next: ProjectConfig): ModelRef | undefined {
  if (before.default_model !== undefined || next.default_model !== undefined) return undefined;
  const added = next.models.find((m) => findModel(before, m) === undefined);
  return added === undefined ? undefined : { provider: added.provider, model_id: added.model_id };
}

/** Remove an entry; the default and vision references to it are cleared too. */
export function removeModel(config: ProjectConfig, ref: ModelRef): ProjectConfig {
  const out: ProjectConfig = { ...config, models: config.models.filter((m) => !sameRef(m, ref)) };
  if (out.default_model && sameRef(out.default_model, ref)) delete out.default_model;
  if (out.vision_model && sameRef(out.vision_model, ref)) delete out.vision_model;
  return out;
}
