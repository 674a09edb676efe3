/**
 * Server-wide settings (admin): proxy use, attachment limits and the workspace roots (the
 * folders under which session workspaces may lie; see services/workspace-roots.ts), stored as one JSON value
 * and read back with defaults filled, so an old or hand-edited row never breaks a route.
 */
import { isAbsolute } from "node:path";
import { Schema } from "effect";
import type { SettingsStore } from "../db/settings-store.js";

const AbsolutePath = Schema.String.pipe(Schema.filter((p) => isAbsolute(p), { message: () => "must be an absolute path on the server" }));

const Megabytes = Schema.Number.pipe(Schema.int(), Schema.between(1, 200));

export const ServerSettings = Schema.Struct({
  proxyForApp: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  proxyForAgent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  proxyUrl: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  attachmentMaxMb: Schema.optionalWith(Megabytes, { default: () => 100 }),
  attachmentTotalMb: Schema.optionalWith(Megabytes, { default: () => 120 }),
  /** Folders under which session workspaces may lie; empty means the server's start-up roots. */
  workspaceRoots: Schema.optionalWith(Schema.mutable(Schema.Array(AbsolutePath).pipe(Schema.maxItems(100))), { default: () => [] }),
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
