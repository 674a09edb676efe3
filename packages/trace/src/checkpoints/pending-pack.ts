/**
 * Blobs on their way into the store: a checkpoint adds them to one PendingPack, which streams
 * them to one temp file (a few MB held at a time) and makes them durable together (`commit`:
 * one fsync, renamed into the store) or drops them (`abandon`). How each blob is kept is the
 * mode's (PackMode) unless it holds a listed secret: then it is sealed (blob-seal.ts).
 */
import { closeSync, fsyncSync, openSync, rmSync } from "node:fs";
import { hashBytes, packEnd, RAW, SEALED, tempPackName, writeAllv, type IndexRow, type StoredAs } from "./pack-format.js";
import type { PackStore } from "./pack-store.js";
import { PackWriter } from "./pack-writer.js";
import { zlib } from "./lazy-builtins.js";

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
    const stored = method === RAW ? bytes : method === SEALED ? this.store.sealKey.seal(bytes) : zlib().gzipSync(bytes, { level: 1 });
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
    for (const bytes of packEnd(this.#index)) this.#write(bytes);
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
      const temp = tempPackName(this.store.tmpDir);
      this.#fd = openSync(temp, "w", 0o600);
      this.#temp = temp;
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

