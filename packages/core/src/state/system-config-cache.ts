/**
 * The parse cache of system_config.yaml: `<agent>/cache/system_config.json` holds the YAML text
 * a config was parsed from and the SystemConfig it gave, so a start whose file has not changed
 * takes the stored value and neither loads the parser (system-config.ts) nor builds the schema.
 *
 * A cache is a shortcut only: it is used when it is whole, of this GENERATION, made from exactly
 * the text on disk (compared in full: exact, and cheaper than hashing it) and its checksum matches
 * the stored config (an edit of the config part alone is a miss). Anything else is a miss, and a
 * miss is what the caller does without a cache: parse, then rewrite it. Reading and writing never
 * throw. The file is written atomically with mode 0600 because the config may hold secrets (MCP
 * `env`, headers), the same data as the YAML; a config that JSON cannot carry exactly (-0,
 * Infinity, NaN, a class instance) is simply not cached.
 *
 * Imports nothing from yaml or effect: this module is on every start's path.
 */
import { constants } from "node:fs";
import { mkdir, open, readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isAtomicTempOf, writeFileAtomic } from "./atomic-write.js";
import type { SystemConfig } from "./system-config-shape.js";

/**
 * Raise it whenever the parse of a given text could give another value: the schema, its
 * defaults, the parser's rules. test/state/system-config-cache.test.ts pins it to a digest of
 * the schema and fails, saying so, when the schema changes and this number does not.
 */
export const SYSTEM_CONFIG_CACHE_GENERATION = 2;

/** A file bigger than this is no cache of ours (a config is a few KB); it is not even read. */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;

/** The cache file's text, or undefined when there is none or it cannot be read (never throws). */
export async function readSystemConfigCache(file: string): Promise<string | undefined> {
  try {
    // O_NONBLOCK: a FIFO put in its place must not hang a start; it is then no regular file.
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > MAX_CACHE_BYTES) return undefined;
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** The stored config when `cacheText` is a whole cache of this generation made from exactly `yamlText`. */
export function cachedSystemConfig(cacheText: string | undefined, yamlText: string): SystemConfig | undefined {
  if (cacheText === undefined) return undefined;
  let stored: unknown;
  try {
    stored = JSON.parse(cacheText);
  } catch {
    return undefined;
  }
  if (!isPlainObject(stored) || stored.generation !== SYSTEM_CONFIG_CACHE_GENERATION || stored.text !== yamlText) return undefined;
  const config = stored.config;
  if (!isPlainObject(config) || stored.check !== checksum(JSON.stringify(config))) return undefined;
  return config as unknown as SystemConfig;
}

/**
 * Writes the cache of `config`, parsed from `yamlText`. Never throws: a read-only data root, a
 * full disk or a config JSON cannot carry leaves no cache (and no temporary file) behind.
 */
export async function writeSystemConfigCache(file: string, yamlText: string, config: SystemConfig): Promise<void> {
  if (!survivesJson(config, new Set())) return;
  const body = JSON.stringify(config);
  const data = `{"generation":${SYSTEM_CONFIG_CACHE_GENERATION},"check":"${checksum(body)}","text":${JSON.stringify(yamlText)},"config":${body}}\n`;
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    // No fsync: a cache lost or torn by a crash is a miss, not a loss.
    await writeFileAtomic(file, data, 0o600, { sync: false });
  } catch {
    return;
  }
  await removeStaleTemps(file);
}

/** Temporary files of writers that died before their rename (a failed write removes its own). */
async function removeStaleTemps(file: string): Promise<void> {
  try {
    const dir = dirname(file);
    const name = basename(file);
    for (const entry of await readdir(dir)) if (isAtomicTempOf(name, entry)) await rm(join(dir, entry), { force: true });
  } catch {
    // Left for the next write.
  }
}

/**
 * FNV-1a (32 bits) of the UTF-16 code units: not a defence against someone who can write the
 * file (they can write the YAML itself), only a check that the config is the one written.
 */
function checksum(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * True when JSON.parse(JSON.stringify(value)) is deep-equal to value: null, booleans, strings,
 * finite numbers other than -0, arrays without holes and plain objects of those, with no
 * undefined, symbol key, accessor or cycle. `open` holds the objects being walked.
 */
function survivesJson(value: unknown, open: Set<object>): boolean {
  if (value === null || typeof value === "boolean" || typeof value === "string") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== "object" || open.has(value)) return false;
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return false;
  if (isArray && Object.getPrototypeOf(value) !== Array.prototype) return false;
  const keys = Reflect.ownKeys(value);
  open.add(value);
  try {
    for (const key of keys) {
      if (typeof key !== "string") return false;
      if (isArray && key === "length") continue;
      const property = Object.getOwnPropertyDescriptor(value, key);
      if (property === undefined || !("value" in property) || property.enumerable !== true) return false;
      if (isArray && !/^(0|[1-9][0-9]*)$/.test(key)) return false;
      if (!survivesJson(property.value, open)) return false;
    }
  } finally {
    open.delete(value);
  }
  // A hole in an array has no key: it would come back as null.
  return !isArray || keys.length === (value as unknown[]).length + 1;
}
