/**
 * The agent vault, `agent_state/.vault.toml`: a flat table of `NAME = "value"` strings.
 *
 * Values reach only the environment of subprocesses; the system prompt and the Trace get
 * key names at most. So this module reads and writes values, and prompt code receives
 * `Object.keys(...)` only. Rules:
 * - keys match VAULT_KEY (an environment variable name); values are strings;
 * - anything else (a number, a sub-table, a bad key, broken TOML) is a ConfigError naming
 *   the file, the line and the key, never a silently dropped entry;
 * - a missing file is an empty vault;
 * - writes are atomic and the file is 0600. Read-modify-write (`setVaultValue`) is not
 *   locked: concurrent writers to one vault may lose an update.
 */
import { parse, stringify, TomlError } from "smol-toml";
import { ConfigError } from "./config-error.js";
import { writeFileAtomic } from "./atomic-write.js";
import { readOptional } from "./fs-utils.js";

export const VAULT_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

const HEADER = "# Agent vault: secrets set as environment variables of commands. Values never enter the prompt.\n";

export async function readVault(file: string): Promise<Record<string, string>> {
  const text = await readOptional(file);
  return text === undefined ? {} : parseVault(text, file);
}

/** Parses vault TOML text. Pure. */
export function parseVault(text: string, file: string): Record<string, string> {
  let table: Record<string, unknown>;
  try {
    table = parse(text);
  } catch (e) {
    if (e instanceof TomlError) {
      throw new ConfigError({ file, line: e.line, column: e.column, problem: `not valid TOML: ${e.message.split("\n")[0] ?? e.message}` });
    }
    throw e;
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) {
    const line = lineOfKey(text, key);
    const at = line !== undefined ? { line } : {};
    if (!VAULT_KEY.test(key)) {
      throw new ConfigError({ file, ...at, field: key, problem: "is not a valid key", hint: "use letters, digits and _ only, not starting with a digit" });
    }
    if (typeof value !== "string") {
      throw new ConfigError({ file, ...at, field: key, problem: "must be a string", hint: `write it quoted: ${key} = "..."` });
    }
    out[key] = value;
  }
  return out;
}

export async function writeVault(file: string, values: Record<string, string>): Promise<void> {
  for (const key of Object.keys(values)) checkKey(file, key);
  const sorted = Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const body = Object.keys(sorted).length === 0 ? "" : `${stringify(sorted)}\n`;
  await writeFileAtomic(file, HEADER + body, 0o600);
}

export async function setVaultValue(file: string, key: string, value: string): Promise<void> {
  checkKey(file, key);
  const values = await readVault(file);
  values[key] = value;
  await writeVault(file, values);
}

/** Removes a key; false when it was not there (the file is then left untouched). */
export async function removeVaultValue(file: string, key: string): Promise<boolean> {
  const values = await readVault(file);
  if (!Object.hasOwn(values, key)) return false;
  delete values[key];
  await writeVault(file, values);
  return true;
}

function checkKey(file: string, key: string): void {
  if (!VAULT_KEY.test(key)) {
    throw new ConfigError({ file, field: key, problem: "is not a valid vault key", hint: "use letters, digits and _ only, not starting with a digit" });
  }
}

/** Best effort: the first line that defines `key` (as `key =`, a dotted `key.x =` or `[key]`). */
function lineOfKey(text: string, key: string): number | undefined {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`^\\s*\\[*\\s*(?:${k}|"${k}"|'${k}')\\s*[=.\\]]`);
  const index = text.split(/\r?\n/).findIndex((line) => re.test(line));
  return index === -1 ? undefined : index + 1;
}
