/**
 * Server-wide settings (admin): proxy use and attachment limits, stored as one JSON value
 * and read back with defaults filled, so an old or hand-edited row never breaks a route.
 */
import { z } from "zod";
import type { SettingsStore } from "../db/settings-store.js";

export const ServerSettings = z.object({
  proxyForApp: z.boolean().default(false),
  proxyForAgent: z.boolean().default(false),
  proxyUrl: z.string().nullable().default(null),
  attachmentMaxMb: z.number().int().min(1).max(200).default(100),
  attachmentTotalMb: z.number().int().min(1).max(200).default(120),
});

export type ServerSettings = z.infer<typeof ServerSettings>;

const KEY = "settings";

export function readServerSettings(store: SettingsStore): ServerSettings {
  const parsed = ServerSettings.safeParse(store.setting(KEY) ?? {});
  return parsed.success ? parsed.data : ServerSettings.parse({});
}

export function writeServerSettings(store: SettingsStore, settings: ServerSettings): void {
  store.setSetting(KEY, settings);
}
