/**
 * The pack file format shared by the writer (pending-pack.ts), the store (pack-store.ts) and
 * its compaction: `<blob bytes…><index JSON><index length, 8 bytes BE>PNGPACK1`, an index row
 * `[hash, offset, length]` with a fourth field RAW (stored as it is) or SEALED (gzip'd and
 * encrypted); no fourth field: gzip'd. Also the small I/O helpers they all need.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, readSync, statSync, writevSync } from "node:fs";
import { join } from "node:path";

export const MAGIC = Buffer.from("PNGPACK1");
export const TRAILER = 16;
export const PACK_SUFFIX = ".pack";

/** How a blob's bytes are kept: as they are, gzip'd (a row without a fourth field), or sealed (gzip'd and encrypted). */
export const RAW = 0;
export const SEALED = 2;
export type StoredAs = typeof RAW | "gzip" | typeof SEALED;

/** A pack index row: hash, offset, length, and RAW or SEALED (no fourth field: gzip'd). */
export type IndexRow = [string, number, number] | [string, number, number, typeof RAW | typeof SEALED];

export const hashBytes = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** A fresh temp name for a pack being written under `tmpDir`. */
export const tempPackName = (tmpDir: string): string => join(tmpDir, `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}${PACK_SUFFIX}`);

/** The index bytes and trailer that end a pack. */
export function packEnd(index: readonly IndexRow[]): Buffer[] {
  const indexBytes = Buffer.from(JSON.stringify(index));
  const trailer = Buffer.alloc(TRAILER);
  trailer.writeBigUInt64BE(BigInt(indexBytes.length), 0);
  MAGIC.copy(trailer, 8);
  return [indexBytes, trailer];
}

/** writev until every byte of `parts` is written (a short write resumes where it stopped). */
export function writeAllv(fd: number, parts: Uint8Array[]): void {
  let rest = parts;
  while (rest.length > 0) {
    let written = writevSync(fd, rest);
    let i = 0;
    while (i < rest.length && written >= rest[i]!.length) written -= rest[i++]!.length;
    rest = rest.slice(i);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}

/** The index of a whole pack held in memory; undefined when it is not one. */
export function indexOfPackBytes(bytes: Buffer): IndexRow[] | undefined {
  if (bytes.length < TRAILER || !bytes.subarray(bytes.length - 8).equals(MAGIC)) return undefined;
  const length = Number(bytes.readBigUInt64BE(bytes.length - TRAILER));
  if (length > bytes.length - TRAILER) return undefined;
  return JSON.parse(bytes.subarray(bytes.length - TRAILER - length, bytes.length - TRAILER).toString("utf8")) as IndexRow[];
}

/** A pack's index from its trailer; undefined for a file that is not a whole pack. */
export function readPackIndex(path: string): IndexRow[] | undefined {
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

export function syncFolder(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

