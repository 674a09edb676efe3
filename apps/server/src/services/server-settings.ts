/**
 * Server-wide settings (admin): proxy use, attachment limits, the workspace roots (the
 * folders under which session workspaces may lie; see services/workspace-roots.ts) and which
 * stdio MCP servers may run (`mcp`; see services/mcp-stdio-policy.ts), stored as one JSON value
 * and read back with defaults filled, so an old or hand-edited row never breaks a route.
 */
import { isAbsolute } from "node:path";
import { Schema } from "effect";
import type { SettingsStore } from "../db/settings-store.js";

const AbsolutePath = Schema.String.pipe(Schema.filter((p) => isAbsolute(p), { message: () => "must be an absolute path on the server" }));

/**
 * One allowed stdio MCP command: a bare name looked up on the server's PATH (`npx`) or an
 * absolute path (`/usr/local/bin/my-mcp`); a relative path would depend on the working
 * directory, which the owner chooses, so it is refused.
 */
const StdioCommand = Schema.String.pipe(
  Schema.filter((c) => c.trim() !== "" && c === c.trim() && c.length <= 4096 && !/[\u0000-\u001f]/.test(c), { message: () => "must be a non-empty command name or path, without surrounding spaces" }),
  Schema.filter((c) => isAbsolute(c) || !c.includes("/"), { message: () => "must be a bare command name (npx) or an absolute path (/usr/local/bin/my-mcp), not a relative path" }),
);

/** Which stdio MCP servers owners may run on this server (services/mcp-stdio-policy.ts). */
export const McpSettings = Schema.Struct({
  /** The commands a stdio MCP server may run; empty: none (owners use `url` servers). */
  stdioCommands: Schema.optionalWith(
    Schema.mutable(Schema.Array(StdioCommand).pipe(Schema.maxItems(100))).annotations({
      description: "The commands stdio MCP servers may run: names on the server's PATH or absolute paths, matched by the file they resolve to. Empty: no stdio MCP servers (url servers only).",
    }),
    { default: () => [] },
  ),
  /**
   * Let stdio MCP servers run where commands are not sandboxed (bwrap missing, or --no-sandbox):
   * they then run as the server's own user and can read every project's keys and traces.
   */
  allowUnsandboxedStdio: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "Run stdio MCP servers where commands are not sandboxed (bwrap missing, or --no-sandbox). They then run as the server's own user and can read every project's keys, vaults and traces.",
    }),
    { default: () => false },
  ),
});

const Megabytes = Schema.Number.pipe(Schema.int(), Schema.between(1, 200));

export const ServerSettings = Schema.Struct({
  proxyForApp: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  proxyForAgent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  proxyUrl: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  attachmentMaxMb: Schema.optionalWith(Megabytes, { default: () => 100 }),
  attachmentTotalMb: Schema.optionalWith(Megabytes, { default: () => 120 }),
  /** Folders under which session workspaces may lie; empty means the server's start-up roots. */
  workspaceRoots: Schema.optionalWith(Schema.mutable(Schema.Array(AbsolutePath).pipe(Schema.maxItems(100))), { default: () => [] }),
  mcp: Schema.optionalWith(McpSettings, { default: () => ({ stdioCommands: [], allowUnsandboxedStdio: false }) }),
});

export type ServerSettings = typeof ServerSettings.Type;

const decodeSettings = Schema.decodeUnknownOption(ServerSettings);

const KEY = "settings";

export function readServerSettings(store: SettingsStore): ServerSettings {
  const parsed = decodeSettings(store.setting(KEY) ?? {});
  return parsed._tag === "Some" ? parsed.value : Schema.decodeUnknownSync(ServerSettings)({});
}

export function writeServerSettings(store: SettingsStore, settings: ServerSettings): void {
  store.setSetting(KEY, settings);
}
