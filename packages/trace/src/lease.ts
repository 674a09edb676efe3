/**
 * The session lease: one writer per session. A file beside the session's trace files
 * (`<traces>/<date>/<sid>.lease`, which no trace reader matches) names the process that runs
 * the session: pid, host, command, since, a random token, and the pid's start time and boot id
 * (process-identity.ts) so a reused pid is not mistaken for the holder.
 *
 * The protocol, all of it synchronous file-system calls:
 * - Acquire: the full lease is written to a private temp file, then hard-linked to the lease
 *   name. `link` fails when the name exists, so exactly one of any number of contenders gets a
 *   free lease, and a reader never sees a half-written one.
 * - A lease that exists is refused when its holder runs, or lives on another host or in another
 *   pid namespace (a container: nobody here can tell whether it runs; the message says how to
 *   remove it).
 * - A stale lease (its holder gone, or a lease no process could have written) is taken over
 *   through a marker `<lease>.takeover-<its token>`, again created by `link`: only the marker's
 *   holder may replace that lease, and only after reading it again under the marker and finding
 *   the same token; it then renames its own lease over it. Replacing never leaves the name
 *   free, so a fresh contender cannot slip in between, and a later taker who still saw the old
 *   token finds a new one and gives up. A taker that dies holding its marker leaves a stale
 *   marker, taken over the same way (a marker of the marker); the next winner removes the
 *   leftovers. Of N processes taking over one stale lease, exactly one wins.
 * - Release unlinks the lease if it still holds this holder's token. Every lease this process
 *   holds is also released when it exits (`process.on("exit")`); a crash leaves it stale for
 *   the next taker.
 */
import { createHash, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { processIsGone, thisProcess, type ProcessIdentity } from "./process-identity.js";

export interface LeaseHolder extends ProcessIdentity {
  /** What runs the session, e.g. `penguin chat`, `penguin server`. */
  command: string;
  /** When the lease was taken (ISO 8601). */
  since: string;
  /** Random, per lease: the holder's proof that the file is still its own. */
  token: string;
}

/** Why a lease was refused: its holder runs, it lives on another host, or another process is taking it over right now. */
export type LeaseRefusal = "held" | "other_host" | "taking_over";

export class LeaseHeldError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LeaseHolder,
    readonly refusal: LeaseRefusal,
  ) {
    super(`${file} is held by ${describeLeaseHolder(holder)}${refusal === "other_host" ? " (another host)" : refusal === "taking_over" ? " (taking over a stale lease)" : ""}`);
    this.name = "LeaseHeldError";
  }
}

/** "pid 123 on host h (penguin chat) since 2026-…". */
export function describeLeaseHolder(h: LeaseHolder): string {
  const elsewhere = h.pidns !== undefined && thisProcess().pidns !== undefined && h.pidns !== thisProcess().pidns ? ` in another pid namespace (${h.pidns})` : "";
  return `pid ${h.pid} on host ${h.host}${elsewhere} (${h.command}) since ${h.since}`;
}

const held = new Map<string, SessionLease>();
let exitHookInstalled = false;

/** A lease this process holds. `release()` is idempotent. */
export class SessionLease {
  #released = false;

  constructor(
    readonly file: string,
    readonly holder: LeaseHolder,
  ) {}

  get released(): boolean {
    return this.#released;
  }

  /** Removes the lease file if it is still this holder's. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    held.delete(this.holder.token);
    if (readLease(this.file)?.holder?.token === this.holder.token) rmSync(this.file, { force: true });
  }
}

/** Releases every lease this process holds (also run on process exit). */
export function releaseHeldLeases(): void {
  for (const lease of [...held.values()]) {
    try {
      lease.release();
    } catch {
      // the next taker finds it stale
    }
  }
}

/** What a lease file holds: its holder, or `holder: undefined` for a file no holder could have written. */
export interface LeaseRead {
  holder: LeaseHolder | undefined;
  /** The holder's token, or a digest of the bytes of an unreadable lease (its marker name). */
  token: string;
}

/** Reads a lease file; undefined when there is none. */
export function readLease(file: string): LeaseRead | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const holder = parseHolder(bytes);
  return holder === undefined ? { holder, token: `x${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}` } : { holder, token: holder.token };
}

function parseHolder(bytes: Buffer): LeaseHolder | undefined {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const { pid, host, command, since, token, pidStart, boot, pidns } = o;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (typeof host !== "string" || typeof command !== "string" || typeof since !== "string" || typeof token !== "string" || !/^[0-9a-f]{8,64}$/.test(token)) return undefined;
  const h: LeaseHolder = { pid, host, command, since, token };
  if (typeof pidStart === "string") h.pidStart = pidStart;
  if (typeof boot === "string") h.boot = boot;
  if (typeof pidns === "string") h.pidns = pidns;
  return h;
}

/** The lease a running holder (or a holder on another host) still has, or undefined when it is free or stale. */
export function liveLeaseHolder(file: string): LeaseHolder | undefined {
  const read = readLease(file);
  if (read?.holder === undefined) return undefined;
  return verdictOf(read) === "stale" ? undefined : read.holder;
}

function verdictOf(read: LeaseRead): "held" | "other_host" | "stale" {
  const h = read.holder;
  if (h === undefined) return "stale";
  const me = thisProcess();
  // Another host, or another pid namespace of this one (a container): its pid cannot be checked here.
  if (h.host !== me.host || (h.pidns !== undefined && me.pidns !== undefined && h.pidns !== me.pidns)) return "other_host";
  // This process knows every lease it holds: one naming its pid that it does not hold was left
  // by an earlier process that had the same pid.
  if (h.pid === process.pid && (h.pidStart === undefined || h.pidStart === me.pidStart)) return held.has(h.token) ? "held" : "stale";
  return processIsGone(h) ? "stale" : "held";
}

/** How often the acquire loop starts over when the lease changes under it (released, replaced). */
const MAX_ROUNDS = 16;

/**
 * Takes the lease at `file` for this process, or throws LeaseHeldError naming its holder. A
 * stale lease is taken over (see the protocol above).
 */
export function acquireLease(file: string, command: string, now: Date = new Date()): SessionLease {
  const me: LeaseHolder = { ...thisProcess(), command, since: now.toISOString(), token: randomBytes(16).toString("hex") };
  const text = `${JSON.stringify(me)}\n`;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${me.token}.tmp`;
  try {
    writeFileSync(tmp, text, { flag: "wx" });
  } catch (error) {
    // A full disk or a read-only folder: nothing half-written stays, and the error names the
    // lease file (Node's write errors carry no path), so the host can say where.
    rmSync(tmp, { force: true });
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { path: (error as { path?: unknown }).path ?? file });
  }
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (tryLink(tmp, file)) return hold(file, me);
      const seen = readLease(file);
      if (seen === undefined) continue; // released meanwhile
      const verdict = verdictOf(seen);
      if (verdict !== "stale") throw new LeaseHeldError(file, seen.holder!, verdict);
      const outcome = replaceStale(file, seen, tmp, text, me.token, 0);
      if (outcome === "replaced") {
        removeLeftovers(file, me.token);
        return hold(file, me);
      }
      if (outcome !== "changed") throw new LeaseHeldError(file, outcome, "taking_over");
    }
    const last = readLease(file)?.holder;
    throw new LeaseHeldError(file, last ?? me, "taking_over");
  } finally {
    rmSync(tmp, { force: true });
  }
}

function hold(file: string, me: LeaseHolder): SessionLease {
  const lease = new SessionLease(file, me);
  held.set(me.token, lease);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", releaseHeldLeases);
  }
  return lease;
}

function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Markers nest once per taker that died holding one; deeper than this something else is wrong. */
const MAX_MARKER_DEPTH = 4;

/**
 * Replaces the stale lease (or marker) at `path`, whose token was `stale.token`, with this
 * process's: "replaced"; "changed" when it is no longer that lease (start over); or the live
 * holder of the marker when another process is taking it over right now.
 */
function replaceStale(path: string, stale: LeaseRead, tmp: string, text: string, token: string, depth: number): "replaced" | "changed" | LeaseHolder {
  const marker = `${path}.takeover-${stale.token}`;
  if (!tryLink(tmp, marker)) {
    const taker = readLease(marker);
    if (taker === undefined) return "changed";
    // A live taker wins unless the lease has already moved on (then it is judged afresh).
    if (verdictOf(taker) !== "stale") return readLease(path)?.token === stale.token ? taker.holder! : "changed";
    if (depth >= MAX_MARKER_DEPTH) return "changed";
    // The taker died holding the marker: take the marker over, then go on as its holder.
    const took = replaceStale(marker, taker, tmp, text, token, depth + 1);
    if (took !== "replaced") return took;
  }
  try {
    if (readLease(path)?.token !== stale.token) return "changed";
    const fresh = `${path}.${token}.new`;
    writeFileSync(fresh, text);
    try {
      renameSync(fresh, path);
    } catch (error) {
      rmSync(fresh, { force: true });
      throw error;
    }
    return "replaced";
  } finally {
    rmSync(marker, { force: true });
  }
}

/**
 * After a takeover: markers of earlier tokens are moot (the lease never goes back to them), and
 * temp files of dead processes are litter. A live contender's temp file stays, and so does one
 * that does not name its writer yet.
 */
function removeLeftovers(file: string, token: string): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || name.includes(token)) continue;
    const path = join(dir, name);
    const rest = name.slice(prefix.length);
    if (rest.startsWith("takeover-")) rmSync(path, { force: true });
    else if (/^[0-9a-f]+\.(tmp|new)$/.test(rest)) {
      // Only a temp file that names its writer, and a dead one: a file that does not parse yet
      // may be a live contender's, between its create and its write (removing it would fail that
      // contender's link with ENOENT).
      const read = readLease(path);
      if (read?.holder !== undefined && verdictOf(read) === "stale") rmSync(path, { force: true });
    }
  }
}
