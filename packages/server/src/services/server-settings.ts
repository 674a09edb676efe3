/**
 * Server-wide settings (admin): proxy use and attachment limits, stored as one JSON value
 * and read back with defaults filled, so an old or hand-edited row never breaks a route.
 */
import { Schema } from "effect";
import type { SettingsStore } from "../db/settings-store.js";

const Megabytes = Schema.Number.pipe(Schema.int(), Schema.between(1, 200));

export const ServerSettings = Schema.Struct({
  proxyForApp: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  proxyForAgent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  proxyUrl: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  attachmentMaxMb: Schema.optionalWith(Megabytes, { default: () => 100 }),
  attachmentTotalMb: Schema.optionalWith(Megabytes, { default: () => 120 }),
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
