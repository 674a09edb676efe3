/**
 * The content-addressed store behind workspace checkpoints: blobs named by the SHA-256 of
 * their bytes, gzip-compressed, kept in pack files under the agent's data folder (never in a
 * workspace). One checkpoint writes at most one pack holding only the blobs the store did not
 * have yet, so a checkpoint costs one fsync however many files changed, and a file seen
 * before (in any session of the agent) is never stored twice.
 *
 * A pack is `<blob bytes…><index JSON><index length, 8 bytes BE>PNGPACK1`; it is written to a
 * temp name, fsynced, renamed into `packs/` and the folder fsynced: only then is it durable,
 * and only then may a trace line name what it holds. A crash leaves at most a temp file, which
 * no reader lists. Packs are never rewritten; several processes may add packs side by side
 * (a blob stored twice is harmless), and a reader that misses a blob looks for new packs.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

const MAGIC = Buffer.from("PNGPACK1");
const TRAILER = 16;
const PACK_SUFFIX = ".pack";

interface BlobPlace {
  pack: string;
  offset: number;
  length: number;
}

export class BlobMissingError extends Error {
  constructor(hash: string, dir: string) {
    super(`checkpoint blob ${hash} is not in the store at ${dir}: the store was moved or pruned; the checkpoint cannot be restored`);
    this.name = "BlobMissingError";
  }
}

export const hashBytes = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Blobs not yet durable: added by a checkpoint, written together by `commit`. */
export class PendingPack {
  readonly #parts: Buffer[] = [];
  readonly #index: [string, number, number][] = [];
  readonly #hashes = new Set<string>();
  #length = 0;

  constructor(readonly store: PackStore) {}

  /** Stores `bytes` unless the store or this pack has them; returns their hash. */
  add(bytes: Uint8Array, knownHash?: string): string {
    const hash = knownHash ?? hashBytes(bytes);
    if (this.#hashes.has(hash) || this.store.has(hash)) return hash;
    const packed = gzipSync(bytes, { level: 1 });
    this.#parts.push(packed);
    this.#index.push([hash, this.#length, packed.length]);
    this.#hashes.add(hash);
    this.#length += packed.length;
    return hash;
  }

  get size(): number {
    return this.#index.length;
  }

  /** Bytes this pack adds to the store (compressed blobs and index). */
  get bytes(): number {
    return this.#length;
  }

  /** Makes every added blob durable (one pack, one fsync); a no-op when nothing was added. */
  commit(): void {
    if (this.#index.length === 0) return;
    this.store.writePack(this.#parts, this.#index);
    this.#parts.length = 0;
    this.#index.length = 0;
    this.#hashes.clear();
    this.#length = 0;
  }
}

export class PackStore {
  readonly #dir: string;
  readonly #places = new Map<string, BlobPlace>();
  readonly #seenPacks = new Set<string>();

  constructor(dir: string) {
    this.#dir = dir;
    mkdirSync(join(dir, "packs"), { recursive: true });
    mkdirSync(join(dir, "tmp"), { recursive: true });
    this.#loadNewPacks();
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

  pending(): PendingPack {
    return new PendingPack(this);
  }

  /** The blob's bytes; throws BlobMissingError when no pack holds it. */
  read(hash: string): Buffer {
    let place = this.#places.get(hash);
    if (place === undefined) {
      this.#loadNewPacks();
      place = this.#places.get(hash);
    }
    if (place === undefined) throw new BlobMissingError(hash, this.#dir);
    const fd = openSync(join(this.#dir, "packs", place.pack), "r");
    try {
      const packed = Buffer.alloc(place.length);
      readSync(fd, packed, 0, place.length, place.offset);
      return gunzipSync(packed);
    } finally {
      closeSync(fd);
    }
  }

  /** Total bytes of the store's packs (the storage figure of the bench). */
  storedBytes(): number {
    let total = 0;
    for (const name of this.#packNames()) total += statSync(join(this.#dir, "packs", name)).size;
    return total;
  }

  writePack(parts: readonly Buffer[], index: readonly [string, number, number][]): void {
    const indexBytes = Buffer.from(JSON.stringify(index));
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeBigUInt64BE(BigInt(indexBytes.length), 0);
    MAGIC.copy(trailer, 8);
    const name = `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}${PACK_SUFFIX}`;
    const temp = join(this.#dir, "tmp", name);
    const fd = openSync(temp, "w", 0o600);
    try {
      for (const part of [...parts, indexBytes, trailer]) writeSync(fd, part);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
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
      const index = readPackIndex(join(this.#dir, "packs", name));
      if (index !== undefined) this.#addIndex(name, index);
    }
  }

  #addIndex(name: string, index: readonly [string, number, number][]): void {
    this.#seenPacks.add(name);
    for (const [hash, offset, length] of index) if (!this.#places.has(hash)) this.#places.set(hash, { pack: name, offset, length });
  }
}

/** A pack's index from its trailer; undefined for a file that is not a whole pack. */
function readPackIndex(path: string): [string, number, number][] | undefined {
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
    return JSON.parse(json.toString("utf8")) as [string, number, number][];
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
