/**
 * Byte-exact JSON: cut a member's raw text out of a provider's event, and splice raw text back
 * into a request body.
 *
 * Fidelity means re-sending what the provider gave us unchanged. `JSON.parse` followed by
 * `JSON.stringify` is not byte-exact (escapes, number spellings and whitespace can change), so
 * an item that must go back whole (a Responses `reasoning` item) is kept as the exact substring
 * of the event it came in, and written into the next request with `stringifyWithRaw`, which
 * copies `RawJson` text verbatim and serialises everything else like `JSON.stringify`.
 * Node 20 has no `JSON.rawJSON`, hence this small serialiser.
 */

/** Text that is already JSON and must be written as-is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `JSON.stringify`, except that `RawJson` values are copied verbatim. Undefined members are dropped; a `toJSON` method is honoured. */
export function stringifyWithRaw(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || value === undefined) return "null";
  if (typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") return stringifyWithRaw((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : stringifyWithRaw(v))).join(",")}]`;
  }
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "object": {
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined || typeof v === "function") continue;
        parts.push(`${JSON.stringify(k)}:${stringifyWithRaw(v)}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      return "null";
  }
}

function skipWs(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    i++;
  }
  return i;
}

/** Index just past the JSON string starting at `i` (which must be a quote). */
function skipString(s: string, i: number): number {
  i++;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 92) i += 2;
    else if (c === 34) return i + 1;
    else i++;
  }
  return -1;
}

/** Index just past the JSON value starting at `i`. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 34) return skipString(s, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    while (i < s.length) {
      const d = s.charCodeAt(i);
      if (d === 34) {
        i = skipString(s, i);
        if (i < 0) return -1;
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }
  while (i < s.length) {
    const d = s.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13) break;
    i++;
  }
  return i;
}

/**
 * The raw text of the top-level member `key` of the JSON object `json`, exactly as it appears,
 * or undefined. Call it on text that `JSON.parse` accepted.
 */
export function rawMember(json: string, key: string): string | undefined {
  let i = skipWs(json, 0);
  if (json.charCodeAt(i) !== 123) return undefined;
  i = skipWs(json, i + 1);
  while (i < json.length && json.charCodeAt(i) === 34) {
    const keyEnd = skipString(json, i);
    if (keyEnd < 0) return undefined;
    const name: unknown = JSON.parse(json.slice(i, keyEnd));
    i = skipWs(json, keyEnd);
    if (json.charCodeAt(i) !== 58) return undefined;
    i = skipWs(json, i + 1);
    const valueEnd = skipValue(json, i);
    if (valueEnd < 0) return undefined;
    if (name === key) return json.slice(i, valueEnd);
    i = skipWs(json, valueEnd);
    if (json.charCodeAt(i) !== 44) return undefined;
    i = skipWs(json, i + 1);
  }
  return undefined;
}
