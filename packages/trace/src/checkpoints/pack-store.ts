/**
 * The content-addressed store behind workspace checkpoints: blobs named by the SHA-256 of
 * their bytes, kept in pack files under the agent's data folder (never in a workspace):
 * gzip'd (level 1), except a workspace's first checkpoint when the caller listed the session's
 * secrets, whose files are stored as they are (see PackMode: on 200 MB, compressing costs
 * seconds of CPU, writing the bytes does not). A blob holding one of those secrets is sealed
 * instead, whatever the mode (gzip'd and encrypted: blob-seal.ts), so no secret is ever in a
 * pack in plain text. One checkpoint writes at most one pack holding only the blobs the store did not
 * have yet, so a checkpoint costs one fsync however many files changed, and a file seen
 * before (in any session of the agent) is never stored twice.
 *
 * A pack is `<blob bytes…><index JSON><index length, 8 bytes BE>PNGPACK1` (an index row is
 * `[hash, offset, length]`, with a fourth `0` for a blob stored as it is); it is streamed to a
 * temp name, fsynced, renamed into `packs/` and the folder fsynced: only then is it durable,
 * and only then may a trace line name what it holds. A crash leaves at most a temp file, which
 * no reader lists. Packs are never rewritten; several processes may add packs side by side
 * (a blob stored twice is harmless), and a reader that misses a blob looks for new packs.
 * Packs written before sealing existed read as they did (their rows never say SEALED).
 * Small packs (one per tool call) are merged by `compact` (a session's close); a reader
 * that meets a pack merged away reads the index afresh and finds the blob where it went.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync, writevSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { SealKey } from "./blob-seal.js";
import { PackWriter } from "./pack-writer.js";
import { SecretFinder } from "./secret-finder.js";

const MAGIC = Buffer.from("PNGPACK1");
const TRAILER = 16;
const PACK_SUFFIX = ".pack";

interface BlobPlace {
  pack: string;
  offset: number;
  length: number;
  method: StoredAs;
}

/** How a blob's bytes are kept: as they are, gzip'd (a row without a fourth field), or sealed (gzip'd and encrypted). */
const RAW = 0;
const SEALED = 2;
type StoredAs = typeof RAW | "gzip" | typeof SEALED;

/** A pack index row: hash, offset, length, and RAW or SEALED (no fourth field: gzip'd). */
type IndexRow = [string, number, number] | [string, number, number, typeof RAW | typeof SEALED];

export class BlobMissingError extends Error {
  constructor(hash: string, dir: string) {
    super(`checkpoint blob ${hash} is not in the store at ${dir}: the store was moved or pruned; the checkpoint cannot be restored`);
    this.name = "BlobMissingError";
  }
}

export const hashBytes = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * How a pending pack keeps what it is given: gzip'd (level 1; a checkpoint after a tool call,
 * a few files), stored as they are (a workspace's first checkpoint when the session's secrets
 * are known: compressing 200 MB costs seconds, writing it does not), or only hashed (a
 * comparison that keeps nothing). In every mode a blob holding a known secret is sealed.
 */
export type PackMode = "compress" | "raw" | "hash-only";

/** Bytes gathered before one write to the pack's temp file, in at most MAX_IOV buffers. */
const SLAB = 4 << 20;
const MAX_IOV = 1024;

/**
 * Blobs not yet durable: added by a checkpoint and streamed to one temp file (a few MB held
 * at a time, never all), made durable together by `commit` (one fsync) or dropped by `abandon`.
 */
export class PendingPack {
  readonly #index: IndexRow[] = [];
  readonly #hashes = new Set<string>();
  #length = 0;
  #fd: number | undefined;
  #temp: string | undefined;
  #queued: Uint8Array[] = [];
  #fill = 0;
  /** Bytes handed to the file so far (where the next flush goes). */
  #flushed = 0;
  /** A raw pack's second thread, from its first flush on (see pack-writer.ts). */
  #writer: PackWriter | undefined;

  constructor(
    readonly store: PackStore,
    readonly mode: PackMode = "compress",
  ) {}

  /**
   * Stores `bytes` unless the store or this pack has them; returns their hash. In "raw" mode a
   * buffer that owns its memory is handed to the writer thread: the caller must not use it after.
   */
  add(bytes: Uint8Array, knownHash?: string): string {
    const hash = knownHash ?? hashBytes(bytes);
    if (this.mode === "hash-only" || this.#hashes.has(hash) || this.store.has(hash)) return hash;
    const secrets = this.store.secrets;
    const method: StoredAs = secrets !== undefined && secrets.finds(bytes) ? SEALED : this.mode === "raw" ? RAW : "gzip";
    const stored = method === RAW ? bytes : method === SEALED ? this.store.sealKey.seal(bytes) : gzipSync(bytes, { level: 1 });
    // Read before the write: a raw pack hands `stored` to its writer thread, which empties it here.
    const length = stored.length;
    this.#index.push(method === "gzip" ? [hash, this.#length, length] : [hash, this.#length, length, method]);
    this.#hashes.add(hash);
    this.#length += length;
    this.#write(stored);
    return hash;
  }

  get size(): number {
    return this.#index.length;
  }

  /** Bytes this pack adds to the store (its blobs as stored). */
  get bytes(): number {
    return this.#length;
  }

  /** Makes every added blob durable (one pack, one fsync); a no-op when nothing was added. */
  commit(): void {
    if (this.#index.length === 0 || this.#fd === undefined || this.#temp === undefined) return this.abandon();
    const indexBytes = Buffer.from(JSON.stringify(this.#index));
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeBigUInt64BE(BigInt(indexBytes.length), 0);
    MAGIC.copy(trailer, 8);
    this.#write(indexBytes);
    this.#write(trailer);
    this.#flush();
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      this.#settleWriter();
      fsyncSync(fd);
    } catch (error) {
      rmSync(this.#temp, { force: true });
      this.#temp = undefined;
      this.#clear();
      throw error;
    } finally {
      closeSync(fd);
    }
    this.store.addPack(this.#temp, this.#index);
    this.#temp = undefined;
    this.#clear();
  }

  /** Drops what was added (nothing of it becomes durable). */
  abandon(): void {
    try {
      this.#settleWriter();
    } catch {
      // Dropped anyway.
    }
    if (this.#fd !== undefined) closeSync(this.#fd);
    if (this.#temp !== undefined) rmSync(this.#temp, { force: true });
    this.#fd = undefined;
    this.#temp = undefined;
    this.#clear();
  }

  /** Every write of the second thread done (before the file is synced or closed), and the thread ended. */
  #settleWriter(): void {
    const writer = this.#writer;
    if (writer === undefined) return;
    this.#writer = undefined;
    try {
      writer.drain();
    } finally {
      writer.close();
    }
  }

  #clear(): void {
    this.#flushed = 0;
    this.#index.length = 0;
    this.#hashes.clear();
    this.#length = 0;
    this.#fill = 0;
    this.#queued = [];
  }

  #write(bytes: Uint8Array): void {
    if (this.#fd === undefined) {
      this.#temp = join(this.store.tmpDir, `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}${PACK_SUFFIX}`);
      this.#fd = openSync(this.#temp, "w", 0o600);
    }
    // Gathered, not copied: one writev per few MB hands the kernel the buffers as they are.
    this.#queued.push(bytes);
    this.#fill += bytes.length;
    if (this.#fill >= SLAB || this.#queued.length >= MAX_IOV) this.#flush();
  }

  #flush(): void {
    if (this.#queued.length === 0 || this.#fd === undefined) return;
    // A raw pack is big (a whole workspace): its bytes go to the file on a second thread while
    // the scan reads and hashes on; a few gzip'd blobs are written here.
    if (this.mode === "raw") (this.#writer ??= new PackWriter()).write(this.#fd, this.#flushed, this.#queued);
    else writeAllv(this.#fd, this.#queued);
    this.#flushed += this.#fill;
    this.#queued = [];
    this.#fill = 0;
  }
}

/** writev until every byte of `parts` is written (a short write resumes where it stopped). */
function writeAllv(fd: number, parts: Uint8Array[]): void {
  let rest = parts;
  while (rest.length > 0) {
    let written = writevSync(fd, rest);
    let i = 0;
    while (i < rest.length && written >= rest[i]!.length) written -= rest[i++]!.length;
    rest = rest.slice(i);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}

export interface PackStoreOptions {
  /**
   * The session's secrets (vault values and the encoded forms the redactor hides): a blob
   * holding one is sealed. Given, they also let a first checkpoint be stored as it is.
   */
  secrets?: readonly string[];
}

export class PackStore {
  readonly #dir: string;
  readonly #places = new Map<string, BlobPlace>();
  readonly #seenPacks = new Set<string>();
  #open: Map<string, number> | undefined;
  #reindexing = false;
  /** Undefined when no secrets were listed (then nothing is stored as it is: see `storesRaw`). */
  readonly secrets: SecretFinder | undefined;
  readonly sealKey: SealKey;

  constructor(dir: string, options: PackStoreOptions = {}) {
    this.#dir = dir;
    mkdirSync(join(dir, "packs"), { recursive: true });
    mkdirSync(join(dir, "tmp"), { recursive: true });
    this.secrets = options.secrets === undefined ? undefined : new SecretFinder(options.secrets);
    this.sealKey = new SealKey(dir);
    this.#loadNewPacks();
  }

  /**
   * Whether blobs may be stored as they are: only when the caller listed the session's
   * secrets (an empty list included: a vault with no values), so a blob holding one is sealed.
   */
  get storesRaw(): boolean {
    return this.secrets !== undefined;
  }

  get dir(): string {
    return this.#dir;
  }

  /** Where packs are written before they are durable (the file watch's drain marker lives here too). */
  get tmpDir(): string {
    return join(this.#dir, "tmp");
  }

  has(hash: string): boolean {
    return this.#places.has(hash);
  }

  pending(mode: PackMode = "compress"): PendingPack {
    return new PendingPack(this, mode);
  }

  /**
   * Reads inside `work` share one open descriptor per pack (a restore reads hundreds of
   * blobs); they are closed when it returns.
   */
  reading<T>(work: () => T): T {
    if (this.#open !== undefined) return work();
    this.#open = new Map();
    try {
      return work();
    } finally {
      for (const fd of this.#open.values()) closeSync(fd);
      this.#open = undefined;
    }
  }

  /** The blob's bytes; throws BlobMissingError when no pack holds it. */
  read(hash: string): Buffer {
    let place = this.#places.get(hash);
    if (place === undefined) {
      this.#loadNewPacks();
      place = this.#places.get(hash);
    }
    if (place === undefined) throw new BlobMissingError(hash, this.#dir);
    const shared = this.#open?.get(place.pack);
    let fd: number;
    try {
      fd = shared ?? openSync(join(this.#dir, "packs", place.pack), "r");
    } catch (error) {
      // Merged into a bigger pack by a compaction (which made that one durable first): look again.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      return this.#reindexed(() => this.read(hash));
    }
    try {
      const packed = Buffer.allocUnsafe(place.length);
      for (let done = 0; done < place.length; ) {
        const n = readSync(fd, packed, done, place.length - done, place.offset + done);
        if (n === 0) throw new Error(`pack ${place.pack} ends inside blob ${hash}: the store at ${this.#dir} is damaged`);
        done += n;
      }
      return place.method === RAW ? packed : place.method === SEALED ? this.sealKey.open(packed) : gunzipSync(packed);
    } finally {
      if (shared === undefined) {
        if (this.#open !== undefined) this.#open.set(place.pack, fd);
        else closeSync(fd);
      }
    }
  }

  /** Total bytes of the store's packs (the storage figure of the bench). */
  storedBytes(): number {
    let total = 0;
    for (const name of this.#packNames()) total += statSync(join(this.#dir, "packs", name)).size;
    return total;
  }

  /** A pending pack's durable temp file: renamed into `packs/`, the folder synced, its blobs indexed. */
  addPack(temp: string, index: readonly IndexRow[]): void {
    const name = basename(temp);
    renameSync(temp, join(this.#dir, "packs", name));
    syncFolder(join(this.#dir, "packs"));
    this.#addIndex(name, index);
  }

  #packNames(): string[] {
    return readdirSync(join(this.#dir, "packs")).filter((n) => n.endsWith(PACK_SUFFIX));
  }

  #loadNewPacks(): void {
    for (const name of this.#packNames()) {
      if (this.#seenPacks.has(name)) continue;
      let index: IndexRow[] | undefined;
      try {
        index = readPackIndex(join(this.#dir, "packs", name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // compacted away meanwhile
        throw error;
      }
      if (index !== undefined) this.#addIndex(name, index);
    }
  }

  /**
   * `work` again over an index read afresh from the packs there are now (a pack we knew is gone:
   * its blobs are in the pack that took them, which our index skipped as known). Once: a blob
   * still missing then is missing.
   */
  #reindexed<T>(work: () => T): T {
    if (this.#reindexing) throw new BlobMissingError("(a pack vanished while the index was read again)", this.#dir);
    this.#reindexing = true;
    try {
      this.#places.clear();
      this.#seenPacks.clear();
      this.#loadNewPacks();
      return work();
    } finally {
      this.#reindexing = false;
    }
  }

  /**
   * Merges the packs smaller than `smallerThan` bytes into one when there are at least `atLeast`
   * of them (a session writes one small pack per tool call; every open of the store reads each
   * pack's index). Blobs are copied as they are stored (raw, gzip'd or sealed alike); the merged
   * pack is durable (fsync, rename, folder fsync) before the small ones are removed, so a crash
   * in between leaves blobs stored twice, never missing. A reader elsewhere that still points at
   * a removed pack finds the blob again (`read`). Returns how many packs were merged.
   */
  compact(options: { smallerThan: number; atLeast: number }): number {
    const small = this.#packNames().flatMap((name) => {
      try {
        const size = statSync(join(this.#dir, "packs", name)).size;
        return size < options.smallerThan ? [name] : [];
      } catch {
        return [];
      }
    });
    if (small.length < options.atLeast) return 0;
    const parts: Buffer[] = [];
    const index: IndexRow[] = [];
    const taken = new Set<string>();
    const merged: string[] = [];
    let length = 0;
    for (const name of small) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(this.#dir, "packs", name));
      } catch {
        continue; // another process compacted it
      }
      const rows = indexOfPackBytes(bytes);
      if (rows === undefined) continue;
      merged.push(name);
      for (const [hash, offset, size, method] of rows) {
        if (taken.has(hash)) continue;
        taken.add(hash);
        parts.push(bytes.subarray(offset, offset + size));
        index.push(method === undefined ? [hash, length, size] : [hash, length, size, method]);
        length += size;
      }
    }
    if (merged.length < 2) return 0;
    const indexBytes = Buffer.from(JSON.stringify(index));
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeBigUInt64BE(BigInt(indexBytes.length), 0);
    MAGIC.copy(trailer, 8);
    const temp = join(this.tmpDir, `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}${PACK_SUFFIX}`);
    const fd = openSync(temp, "w", 0o600);
    try {
      writeAllv(fd, [...parts, indexBytes, trailer]);
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      rmSync(temp, { force: true });
      throw error;
    }
    closeSync(fd);
    for (const name of merged) this.#forgetPackQuietly(name);
    this.addPack(temp, index);
    for (const name of merged) rmSync(join(this.#dir, "packs", name), { force: true });
    syncFolder(join(this.#dir, "packs"));
    return merged.length;
  }

  /** Forgets a pack without looking for new ones (the compaction adds the merged one itself). */
  #forgetPackQuietly(name: string): void {
    this.#seenPacks.delete(name);
    for (const [hash, place] of this.#places) if (place.pack === name) this.#places.delete(hash);
  }

  #addIndex(name: string, index: readonly IndexRow[]): void {
    this.#seenPacks.add(name);
    for (const [hash, offset, length, method] of index) if (!this.#places.has(hash)) this.#places.set(hash, { pack: name, offset, length, method: method === RAW || method === SEALED ? method : "gzip" });
  }
}

/** The index of a whole pack held in memory; undefined when it is not one. */
function indexOfPackBytes(bytes: Buffer): IndexRow[] | undefined {
  if (bytes.length < TRAILER || !bytes.subarray(bytes.length - 8).equals(MAGIC)) return undefined;
  const length = Number(bytes.readBigUInt64BE(bytes.length - TRAILER));
  if (length > bytes.length - TRAILER) return undefined;
  return JSON.parse(bytes.subarray(bytes.length - TRAILER - length, bytes.length - TRAILER).toString("utf8")) as IndexRow[];
}

/** A pack's index from its trailer; undefined for a file that is not a whole pack. */
function readPackIndex(path: string): IndexRow[] | undefined {
  const fd = openSync(path, "r");
  try {
    const size = statSync(path).size;
    if (size < TRAILER) return undefined;
    const trailer = Buffer.alloc(TRAILER);
    readSync(fd, trailer, 0, TRAILER, size - TRAILER);
    if (!trailer.subarray(8).equals(MAGIC)) return undefined;
    const length = Number(trailer.readBigUInt64BE(0));
    if (length > size - TRAILER) return undefined;
    const json = Buffer.alloc(length);
    readSync(fd, json, 0, length, size - TRAILER - length);
    return JSON.parse(json.toString("utf8")) as IndexRow[];
  } finally {
    closeSync(fd);
  }
}

function syncFolder(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
