/**
 * Small field readers for JSON the server sends back, used by the resource modules to turn
 * an answer into the shapes of api/types.ts without casting: each reader checks the type and
 * falls back to a default. Kept apart so every module reads fields the same way.
 */

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export const asRecord = (v: unknown): Json => (isRecord(v) ? v : {});

export function str(o: Json, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "string") return v;
  }
  return undefined;
}

export function num(o: Json, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
    if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  }
  return undefined;
}

export function bool(o: Json, ...keys: string[]): boolean | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "boolean") return v;
  }
  return undefined;
}

export function arr(o: Json, ...keys: string[]): unknown[] {
  for (const k of keys) {
    const v = o[k];
    if (Array.isArray(v)) return v;
  }
  return [];
}

/** A list answer that may come bare (`[...]`) or wrapped (`{items|<key>: [...]}`). */
export function listOf(v: unknown, ...keys: string[]): unknown[] {
  if (Array.isArray(v)) return v;
  return arr(asRecord(v), ...keys, "items");
}

/** Epoch ms from a number or an ISO string. */
export function time(o: Json, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
    if (typeof v === "string") {
      const t = Date.parse(v);
      if (!Number.isNaN(t)) return t;
    }
  }
  return undefined;
}

export function oneOf<T extends string>(v: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === v);
}
