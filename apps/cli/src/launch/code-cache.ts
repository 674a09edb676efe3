/**
 * Compiling the bundled CLI script with a V8 code cache, so a `penguin run` does not parse
 * and compile ~3 MB of JavaScript on every start (about 70 ms of CPU on this project's
 * bundle). Node 20 has no module compile cache for ES modules, so the bundle the cache
 * applies to is one CommonJS-shaped script (apps/cli/bundle/cli-script.js) compiled through
 * `vm.Script` with `cachedData`.
 *
 * The cache file is only ever a shortcut: whatever is wrong with it (missing, truncated,
 * bytes flipped, written for another build of the script, another Node or V8, rejected by
 * V8) the script compiles from source as if there were no cache, and a fresh cache is
 * written when the process exits. V8 itself only checks a cache against the source's
 * *length*, and checks the payload's checksum only under `--verify-snapshot-checksum` (off in
 * release builds), so this file turns that flag on around its own compile and serialize (V8 then
 * writes a checksum into every cache it makes and rejects one whose bytes do not match it, at the
 * cost of an Adler-32 pass), and off again after each, and adds a header naming the exact script
 * (a SHA-256 the build computes), the Node and V8 versions and the payload's length. It imports
 * no node:crypto: hashing a several-MB payload on every start is what V8's own check replaces.
 *
 * Layout of a cache file: one line of JSON (the header), a newline, then V8's bytes.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";

/** The format of the header; bump it when the layout changes. */
const FORMAT = "penguin-v8-code-cache/2";

export interface CacheHeader {
  format: string;
  /** The SHA-256 of the script source the cache was made from (the build's script id). */
  script: string;
  node: string;
  v8: string;
  arch: string;
  payloadBytes: number;
}

/** How the cache file served this start. */
export type CacheStatus = "used" | "missing" | "stale" | "corrupt" | "rejected";

export interface CachedScriptOptions {
  /** The script source, exactly as compiled (the wrapper included). */
  source: string;
  /** The file name V8 gives the script in stack traces. */
  filename: string;
  /** The script's identity: a digest of its source, computed at build time. */
  scriptId: string;
  /** Where this start's cache lives. */
  cacheFile: string;
}

export interface CachedScript {
  script: Script;
  status: CacheStatus;
  /** Writes a fresh cache from what the process has compiled so far. Never throws. */
  save(): void;
}

/**
 * Runs `step` with V8 checksumming the code caches it makes and verifying the checksum of those
 * it consumes (a damaged cache is then rejected: `cachedDataRejected`). V8 keys a cache by a hash
 * of the flags in effect and this flag is one of them, so it is on both when a cache is made and
 * when one is used. It is turned off again right after: while any flag differs from its default,
 * Node's own code cache for its built-in modules is refused too (same hash), and every built-in
 * a run loads later would compile from source. V8 recomputes the hash after each change.
 */
export function withCacheChecksums<T>(step: () => T): T {
  setFlagsFromString("--verify-snapshot-checksum");
  try {
    return step();
  } finally {
    setFlagsFromString("--no-verify-snapshot-checksum");
  }
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`, as 8 hex digits: a short name for a set of node flags, not a check. */
export function fnv1a32Hex(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function headerFor(scriptId: string, payload: Buffer): CacheHeader {
  return {
    format: FORMAT,
    script: scriptId,
    node: process.version,
    v8: process.versions.v8,
    arch: process.arch,
    payloadBytes: payload.length,
  };
}

/** Reads a cache file: its V8 bytes when the file is whole and made for this script and runtime, else why not. */
export function readCacheFile(cacheFile: string, scriptId: string): { payload: Buffer } | { status: "missing" | "stale" | "corrupt" } {
  let file: Buffer;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return { status: "missing" };
  }
  const newline = file.indexOf(10);
  if (newline < 0) return { status: "corrupt" };
  let header: Partial<CacheHeader>;
  try {
    header = JSON.parse(file.subarray(0, newline).toString("utf8")) as Partial<CacheHeader>;
  } catch {
    return { status: "corrupt" };
  }
  if (typeof header !== "object" || header === null || header.format !== FORMAT) return { status: "corrupt" };
  if (header.script !== scriptId || header.node !== process.version || header.v8 !== process.versions.v8 || header.arch !== process.arch) return { status: "stale" };
  const payload = file.subarray(newline + 1);
  // A truncated or padded payload; flipped bytes are V8's to find (withCacheChecksums).
  if (header.payloadBytes !== payload.length) return { status: "corrupt" };
  return { payload };
}

/**
 * Writes a cache file atomically (a temp file renamed into place), so a reader never sees half
 * of one. `payload` may be a function: it is only called once the temp file could be created,
 * so a read-only install does not pay for serializing a cache on every exit.
 */
export function writeCacheFile(cacheFile: string, scriptId: string, payload: Buffer | (() => Buffer)): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    fd = openSync(temp, "w");
    const bytes = typeof payload === "function" ? payload() : payload;
    writeSync(fd, Buffer.from(`${JSON.stringify(headerFor(scriptId, bytes))}\n`, "utf8"));
    writeSync(fd, bytes);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, cacheFile);
  } catch {
    // A read-only install, a full disk: the next start compiles from source again.
    try {
      if (fd !== undefined) closeSync(fd);
      rmSync(temp, { force: true });
    } catch {
      // nothing was written, or nothing can be removed either
    }
  }
}

/** Compiles the script, from the cache when a valid one is there, from source otherwise. */
export function compileWithCache(options: CachedScriptOptions): CachedScript {
  const read = readCacheFile(options.cacheFile, options.scriptId);
  const cachedData = "payload" in read ? read.payload : undefined;
  const script = withCacheChecksums(() => new Script(options.source, { filename: options.filename, ...(cachedData === undefined ? {} : { cachedData }) }));
  const status: CacheStatus = "status" in read ? read.status : script.cachedDataRejected === true ? "rejected" : "used";
  return {
    script,
    status,
    save() {
      writeCacheFile(options.cacheFile, options.scriptId, () => withCacheChecksums(() => script.createCachedData()));
    },
  };
}
