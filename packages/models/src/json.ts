/**
 * Readers for untrusted JSON (provider events, error bodies): guards and accessors that answer
 * `undefined` instead of throwing, so protocol code narrows with guards and never casts.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The member as a record, or an empty one. */
export function recordAt(o: unknown, key: string): JsonRecord {
  if (!isRecord(o)) return {};
  const v = o[key];
  return isRecord(v) ? v : {};
}

export function stringAt(o: unknown, key: string): string | undefined {
  if (!isRecord(o)) return undefined;
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

export function numberAt(o: unknown, key: string): number | undefined {
  if (!isRecord(o)) return undefined;
  const v = o[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function arrayAt(o: unknown, key: string): unknown[] {
  if (!isRecord(o)) return [];
  const v = o[key];
  return Array.isArray(v) ? v : [];
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false };

/** `JSON.parse` as a value. */
export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
