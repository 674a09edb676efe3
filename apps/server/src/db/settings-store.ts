/**
 * Small key/value state: per-user UI preferences (one JSON object each, shallow-merged on
 * write) and server-wide settings (one JSON value per key). Values are parsed tolerantly: a
 * row that is not valid JSON reads as absent rather than breaking the page that asks.
 */
import type { FactsDb } from "./facts-db.js";

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
  readonly #facts: FactsDb;

  constructor(facts: FactsDb) {
    this.#facts = facts;
  }

  prefs(userId: string): JsonObject {
    return parseObject(this.#facts.first(this.#facts.query.selectFrom("ui_prefs").select("prefs_json").where("user_id", "=", userId))?.prefs_json);
  }

  /** Shallow merge: top-level keys in `patch` replace the stored ones; `null` removes a key. */
  mergePrefs(userId: string, patch: JsonObject): JsonObject {
    const next = { ...this.prefs(userId) };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete next[k];
      else next[k] = v;
    }
    const q = this.#facts.query
      .insertInto("ui_prefs")
      .values({ user_id: userId, prefs_json: JSON.stringify(next) })
      .onConflict((oc) => oc.column("user_id").doUpdateSet((eb) => ({ prefs_json: eb.ref("excluded.prefs_json") })));
    this.#facts.run(q);
    return next;
  }

  setting(key: string): unknown {
    const row = this.#facts.first(this.#facts.query.selectFrom("server_settings").select("value").where("key", "=", key));
    if (row === undefined) return undefined;
    try {
      const v: unknown = JSON.parse(row.value);
      return v;
    } catch {
      return undefined;
    }
  }

  setSetting(key: string, value: unknown): void {
    const q = this.#facts.query
      .insertInto("server_settings")
      .values({ key, value: JSON.stringify(value) })
      .onConflict((oc) => oc.column("key").doUpdateSet((eb) => ({ value: eb.ref("excluded.value") })));
    this.#facts.run(q);
  }
}
