/**
 * A fast reading of the front matter most SKILL.md files have: flat `key: value` lines whose
 * values are plain one-line scalars, simple double-quoted strings, `true`/`false` or small
 * whole numbers. Reading the installed skills happens on every session start, and the full
 * YAML parser (with its line counter) cost a one-turn `penguin run` a few ms for eight skills.
 *
 * It answers only where its answer is certainly the YAML parser's own (YAML 1.2 core schema,
 * as `yaml` reads it): anything else (comments, quotes with escapes, block scalars, nested
 * values, empty values, duplicate keys, values YAML would read as null, numbers or dates,
 * control characters) gives undefined and the caller parses the text with `yaml`, so the
 * result and every error message stay those of the full parser.
 */

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?$/;
/** A first character that makes YAML read something other than a plain string. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Plain values YAML's core schema resolves to null, booleans or numbers (any sign, dot or digit start). */
const NOT_A_STRING = /^(?:[-+.0-9]|(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE)$)/;
const SIMPLE_QUOTED = /^"([^"\\]*)"$/;
const SMALL_WHOLE = /^[1-9][0-9]{0,8}$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/** The fields of `yaml` (the front matter's text) when it is plain enough, else undefined. */
export function plainFrontMatter(yaml: string): ReadonlyMap<string, string | number | boolean> | undefined {
  const fields = new Map<string, string | number | boolean>();
  for (const line of yaml.split("\n")) {
    if (line.trim() === "") {
      if (line !== "") return undefined;
      continue;
    }
    const m = KEY_LINE.exec(line);
    if (m === null) return undefined;
    const key = m[1]!;
    const value = plainValue((m[2] ?? "").replace(/ +$/, ""));
    if (value === undefined || fields.has(key)) return undefined;
    fields.set(key, value);
  }
  return fields;
}

function plainValue(text: string): string | number | boolean | undefined {
  if (text === "" || CONTROL.test(text)) return undefined;
  const quoted = SIMPLE_QUOTED.exec(text);
  if (quoted !== null) return quoted[1];
  if (text === "true") return true;
  if (text === "false") return false;
  if (SMALL_WHOLE.test(text)) return Number(text);
  if (INDICATOR.test(text) || NOT_A_STRING.test(text)) return undefined;
  if (text.includes(": ") || text.includes(" #") || text.endsWith(":")) return undefined;
  return text;
}
