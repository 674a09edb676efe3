/**
 * Narrowing helpers for JSON of unknown shape (request bodies, fixture lines).
 *
 * Request bodies come from the code under test, so nothing about them is trusted: every read
 * goes through a guard that returns `undefined` on a mismatch instead of a cast that lies.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The field if it is a string, else undefined. */
export function stringField(record: JsonRecord, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}

/** The field if it is an array, else an empty array. */
export function arrayField(record: JsonRecord, key: string): unknown[] {
  const value = record[key];
  return Array.isArray(value) ? value : [];
}

/** The field if it is an object, else undefined. */
export function recordField(record: JsonRecord, key: string): JsonRecord | undefined {
  const value = record[key];
  return isRecord(value) ? value : undefined;
}

/** Only the elements that are objects, so callers can read their fields. */
export function records(values: unknown[]): JsonRecord[] {
  return values.filter(isRecord);
}

/** Parse JSON, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
