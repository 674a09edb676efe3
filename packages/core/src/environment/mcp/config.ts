/**
 * MCP server entries: the typed form of `tools.mcpServers[{name, config}]` from
 * system_config.yaml, and `parseMcpServers`, the one place raw YAML becomes that form.
 *
 * Rules it keeps (SPEC §4, MCP):
 * - three transports: `stdio` (command/args/env/cwd), `http` (Streamable HTTP: url/headers)
 *   and `sse` (the legacy HTTP+SSE transport, only when asked for by name);
 * - `transport` may be left out: an entry with `url` is `http`, one with `command` is
 *   `stdio`; the parsed entry always carries the explicit transport for http and sse;
 * - shared options: `connectTimeoutMs` (per server, default 10000) and `permission`
 *   (`auto` | `r` | `rw`, default `auto`).
 *
 * Validation is strict and all-or-nothing: a wrong type, a missing field, an unknown key
 * (usually a typo such as `comand`) or a repeated server name throws one ConfigError that
 * names the file, the server and the field, so a session never starts on a guess.
 * Throwing is deliberate here: this runs before any session exists, where a bad file is
 * the user's to fix (see state/config-error.ts).
 */
import { ConfigError } from "../../state/config-error.js";

/** `auto` follows each tool's `readOnlyHint`; `r` / `rw` apply to every tool of the server. */
export type McpPermissionSetting = "auto" | "r" | "rw";

export type McpTransportKind = "stdio" | "http" | "sse";

/** Per-server connect budget (connect + handshake + tool discovery) when none is set. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** setTimeout fires at once above this, so no timeout may exceed it. */
export const MAX_TIMER_MS = 2_147_483_647;

interface McpCommonConfig {
  connectTimeoutMs?: number;
  permission?: McpPermissionSetting;
}

export interface McpStdioConfig extends McpCommonConfig {
  transport?: "stdio";
  command: string;
  args?: string[];
  /** Added on top of a minimal inherited environment; the vault is never injected. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface McpHttpConfig extends McpCommonConfig {
  transport: "http";
  url: string;
  headers?: Record<string, string>;
}

export interface McpSseConfig extends McpCommonConfig {
  transport: "sse";
  url: string;
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioConfig | McpHttpConfig | McpSseConfig;

export interface McpServerEntry {
  name: string;
  config: McpServerConfig;
}

/** The transport an entry uses (`transport` left out means stdio once parsed). */
export function transportOf(config: McpServerConfig): McpTransportKind {
  return config.transport ?? "stdio";
}

const ENTRY_KEYS = ["name", "config"];
const COMMON_KEYS = ["transport", "connectTimeoutMs", "permission"];
const STDIO_KEYS = [...COMMON_KEYS, "command", "args", "env", "cwd"];
const REMOTE_KEYS = [...COMMON_KEYS, "url", "headers"];

/** Where a problem is: the file, the field path inside it, and the server when known. */
interface Where {
  file: string;
  field: string;
  server?: string;
}

function fail(where: Where, problem: string, hint?: string): never {
  const prefix = where.server !== undefined ? `MCP server "${where.server}": ` : "";
  throw new ConfigError({ file: where.file, field: where.field, problem: prefix + problem, hint });
}

function at(where: Where, key: string): Where {
  return { ...where, field: `${where.field}.${key}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function rejectUnknownKeys(obj: Record<string, unknown>, allowed: readonly string[], where: Where): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      fail(at(where, key), `unknown key "${key}"`, `allowed keys here: ${allowed.join(", ")}`);
    }
  }
}

function readNonEmptyString(value: unknown, where: Where): string {
  if (typeof value !== "string" || value.trim() === "") fail(where, "must be a non-empty string");
  return value;
}

function readStringList(value: unknown, where: Where): string[] {
  if (!Array.isArray(value)) fail(where, "must be a list of strings");
  return value.map((item, i) => {
    if (typeof item !== "string") {
      fail({ ...where, field: `${where.field}[${i}]` }, "must be a string", "quote numbers and booleans in YAML");
    }
    return item;
  });
}

function readStringMap(value: unknown, where: Where): Record<string, string> {
  if (!isRecord(value)) fail(where, "must be a map of names to string values");
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") fail(at(where, key), "must be a string", "quote numbers and booleans in YAML");
    out[key] = item;
  }
  return out;
}

function readUrl(value: unknown, where: Where): string {
  const url = readNonEmptyString(value, where);
  if (!URL.canParse(url)) fail(where, `is not a valid URL: ${JSON.stringify(url)}`);
  const protocol = new URL(url).protocol;
  if (protocol !== "http:" && protocol !== "https:") fail(where, `must be an http:// or https:// URL, got ${protocol}`);
  return url;
}

function readTimeout(value: unknown, where: Where): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0 || value > MAX_TIMER_MS) {
    fail(where, "must be a positive whole number of milliseconds", `e.g. ${DEFAULT_CONNECT_TIMEOUT_MS}`);
  }
  return value;
}

function readPermission(value: unknown, where: Where): McpPermissionSetting {
  if (value === "auto" || value === "r" || value === "rw") return value;
  return fail(where, `must be "auto", "r" or "rw", got ${JSON.stringify(value)}`);
}

function readTransport(config: Record<string, unknown>, where: Where): McpTransportKind {
  const declared = config["transport"];
  if (declared === "stdio" || declared === "http" || declared === "sse") return declared;
  if (declared !== undefined) {
    fail(at(where, "transport"), `must be "stdio", "http" or "sse", got ${JSON.stringify(declared)}`);
  }
  const hasUrl = config["url"] !== undefined;
  const hasCommand = config["command"] !== undefined;
  if (hasUrl && hasCommand) {
    fail(where, 'has both "command" and "url"', 'set "transport" to say which one to use');
  }
  if (hasUrl) return "http";
  if (hasCommand) return "stdio";
  return fail(where, 'needs "command" (a local server) or "url" (a remote server)');
}

function readCommon(config: Record<string, unknown>, where: Where): McpCommonConfig {
  const common: McpCommonConfig = {};
  if (config["connectTimeoutMs"] !== undefined) {
    common.connectTimeoutMs = readTimeout(config["connectTimeoutMs"], at(where, "connectTimeoutMs"));
  }
  if (config["permission"] !== undefined) {
    common.permission = readPermission(config["permission"], at(where, "permission"));
  }
  return common;
}

function readStdio(config: Record<string, unknown>, where: Where): McpStdioConfig {
  rejectUnknownKeys(config, STDIO_KEYS, where);
  const parsed: McpStdioConfig = {
    transport: "stdio",
    command: readNonEmptyString(config["command"], at(where, "command")),
    ...readCommon(config, where),
  };
  if (config["args"] !== undefined) parsed.args = readStringList(config["args"], at(where, "args"));
  if (config["env"] !== undefined) parsed.env = readStringMap(config["env"], at(where, "env"));
  if (config["cwd"] !== undefined) parsed.cwd = readNonEmptyString(config["cwd"], at(where, "cwd"));
  return parsed;
}

function readRemote<K extends "http" | "sse">(
  transport: K,
  config: Record<string, unknown>,
  where: Where,
): { transport: K; url: string; headers?: Record<string, string> } & McpCommonConfig {
  rejectUnknownKeys(config, REMOTE_KEYS, where);
  const parsed: { transport: K; url: string; headers?: Record<string, string> } & McpCommonConfig = {
    transport,
    url: readUrl(config["url"], at(where, "url")),
    ...readCommon(config, where),
  };
  if (config["headers"] !== undefined) parsed.headers = readStringMap(config["headers"], at(where, "headers"));
  return parsed;
}

function readConfig(value: unknown, where: Where): McpServerConfig {
  if (!isRecord(value)) fail(where, "must be a map (command/args/env/cwd, or url/headers)");
  const transport = readTransport(value, where);
  switch (transport) {
    case "stdio":
      return readStdio(value, where);
    case "http":
      return readRemote("http", value, where);
    case "sse":
      return readRemote("sse", value, where);
  }
}

/**
 * Validates `tools.mcpServers` as read from `file`. `undefined` / `null` (the key left
 * out) means no servers. Throws a ConfigError naming the file, server and field.
 */
export function parseMcpServers(raw: unknown, file: string): McpServerEntry[] {
  const root: Where = { file, field: "tools.mcpServers" };
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) fail(root, "must be a list of {name, config} entries");
  const seen = new Set<string>();
  return raw.map((item, index) => {
    const where: Where = { file, field: `tools.mcpServers[${index}]` };
    if (!isRecord(item)) fail(where, "must be a map with `name` and `config`");
    const name = readNonEmptyString(item["name"], at(where, "name"));
    const named: Where = { ...where, server: name };
    if (seen.has(name)) fail(at(named, "name"), "is used by an earlier entry", "server names must be unique");
    seen.add(name);
    rejectUnknownKeys(item, ENTRY_KEYS, named);
    return { name, config: readConfig(item["config"], at(named, "config")) };
  });
}
