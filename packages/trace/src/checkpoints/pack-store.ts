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
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { SealKey } from "./blob-seal.js";
import { indexOfPackBytes, PACK_SUFFIX, packEnd, RAW, readPackIndex, SEALED, syncFolder, tempPackName, writeAllv, type IndexRow, type StoredAs } from "./pack-format.js";
import { PendingPack, type PackMode } from "./pending-pack.js";
import { SecretFinder } from "./secret-finder.js";
import { zlib } from "./lazy-builtins.js";

export { hashBytes } from "./pack-format.js";
export { PendingPack, type PackMode } from "./pending-pack.js";


interface BlobPlace {
  pack: string;
  offset: number;
  length: number;
  method: StoredAs;
}

export class BlobMissingError extends Error {
  constructor(hash: string, dir: string) {
    super(`checkpoint blob ${hash} is not in the store at ${dir}: the store was moved or pruned; the checkpoint cannot be restored`);
    this.name = "BlobMissingError";
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
      return place.method === RAW ? packed : place.method === SEALED ? this.sealKey.open(packed) : zlib().gunzipSync(packed);
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
    const temp = tempPackName(this.tmpDir);
    const fd = openSync(temp, "w", 0o600);
    try {
      writeAllv(fd, [...parts, ...packEnd(index)]);
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
