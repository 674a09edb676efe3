/**
 * Small key/value state: per-user UI preferences (one JSON object each, shallow-merged on
 * write) and server-wide settings (one JSON value per key). Values are parsed tolerantly: a
 * row that is not valid JSON reads as absent rather than breaking the page that asks.
 */
import type { Database } from "better-sqlite3";

export type JsonObject = Record<string, unknown>;

function parseObject(text: string | undefined): JsonObject {
  if (text === undefined) return {};
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? { ...v } : {};
  } catch {
    return {};
  }
}

export class SettingsStore {
  readonly #getPrefs;
  readonly #setPrefs;
  readonly #getSetting;
  readonly #setSetting;

  constructor(db: Database) {
    this.#getPrefs = db.prepare<[string], { prefs_json: string }>("SELECT prefs_json FROM ui_prefs WHERE user_id = ?");
    this.#setPrefs = db.prepare<[string, string]>(
      "INSERT INTO ui_prefs (user_id, prefs_json) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET prefs_json = excluded.prefs_json",
    );
    this.#getSetting = db.prepare<[string], { value: string }>("SELECT value FROM server_settings WHERE key = ?");
    this.#setSetting = db.prepare<[string, string]>(
      "INSERT INTO server_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
  }

  prefs(userId: string): JsonObject {
    return parseObject(this.#getPrefs.get(userId)?.prefs_json);
  }

  /** Shallow merge: top-level keys in `patch` replace the stored ones; `null` removes a key. */
  mergePrefs(userId: string, patch: JsonObject): JsonObject {
    const next = { ...this.prefs(userId) };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete next[k];
      else next[k] = v;
    }
    this.#setPrefs.run(userId, JSON.stringify(next));
    return next;
  }

  setting(key: string): unknown {
    const row = this.#getSetting.get(key);
    if (row === undefined) return undefined;
    try {
      const v: unknown = JSON.parse(row.value);
      return v;
    } catch {
      return undefined;
    }
  }

  setSetting(key: string, value: unknown): void {
    this.#setSetting.run(key, JSON.stringify(value));
  }
}
