/**
 * Sealing a checkpoint blob that holds a session secret: gzip alone is not encryption (a
 * deflate "stored" block keeps incompressible bytes as they are, so a token inside a binary
 * file can come through gzip in plain text), so such a blob is gzip'd and then encrypted with
 * AES-256-CTR under the store's own key (`<store>/seal.key`, 32 random bytes, mode 0600,
 * made once by whichever process needs it first). A sealed blob is `<16-byte IV><ciphertext>`.
 *
 * What it promises: no vault value (nor an encoded form the caller listed) is ever written in
 * plain text under the data root, so a grep, an indexer, a backup of the packs or a shared
 * bug report never carries one. What it does not: the key sits beside the packs (like the
 * vault file itself sits in the data root), so someone holding the whole data root can open
 * a sealed blob, as they could read the vault.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { zlib } from "./lazy-builtins.js";

const KEY_FILE = "seal.key";
const KEY_BYTES = 32;
const IV_BYTES = 16;

/** The store's sealing key, made (durably, once, whoever races) when `create` is set. */
export class SealKey {
  readonly #dir: string;
  #key: Buffer | undefined;

  constructor(storeDir: string) {
    this.#dir = storeDir;
  }

  get path(): string {
    return join(this.#dir, KEY_FILE);
  }

  #load(create: boolean): Buffer {
    if (this.#key !== undefined) return this.#key;
    try {
      this.#key = readKey(this.path);
      return this.#key;
    } catch (error) {
      if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new Error(`the checkpoint store's sealing key ${this.path} cannot be read (${(error as Error).message}): sealed blobs cannot be restored without it`);
      }
    }
    // Written whole to a temp name and linked into place: a second process that raced us keeps its key, and we read it.
    const temp = join(this.#dir, "tmp", `${KEY_FILE}.${randomBytes(6).toString("hex")}`);
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, randomBytes(KEY_BYTES));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(temp, { force: true });
    }
    const dir = openSync(this.#dir, "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.#key = readKey(this.path);
    return this.#key;
  }

  /** `bytes` gzip'd and encrypted (the key is made and durable before this returns). */
  seal(bytes: Uint8Array): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-ctr", this.#load(true), iv);
    return Buffer.concat([iv, cipher.update(zlib().gzipSync(bytes, { level: 1 })), cipher.final()]);
  }

  open(sealed: Buffer): Buffer {
    const decipher = createDecipheriv("aes-256-ctr", this.#load(false), sealed.subarray(0, IV_BYTES));
    return zlib().gunzipSync(Buffer.concat([decipher.update(sealed.subarray(IV_BYTES)), decipher.final()]));
  }
}

function readKey(path: string): Buffer {
  const key = readFileSync(path);
  if (key.length !== KEY_BYTES) throw new Error(`it holds ${key.length} bytes, not ${KEY_BYTES}`);
  return key;
}
