// Workspace checkpoints and a session's secrets, on real files in temp folders: with the
// secrets listed, the first checkpoint stores files as they are except a file holding a
// secret (itself or an encoded form), which is sealed, so no secret is in plain text in any
// file under the store, even where gzip alone would have kept it (random bytes around it:
// deflate's stored blocks); every file restores byte for byte. Without the list, nothing is
// stored as it is. Packs in the layout written before sealing existed still read. The
// secret finder agrees with a plain indexOf on every needle. A raw pack's writer thread puts
// batches where they belong whatever order they finish in, and a failed write is an error.
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { hashBytes, PackStore } from "../src/checkpoints/pack-store.js";
import { SecretFinder } from "../src/checkpoints/secret-finder.js";
import { PackWriter } from "../src/checkpoints/pack-writer.js";
import { WorkspaceCheckpoints } from "../src/checkpoints/workspace-checkpoints.js";

const made: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Each pack's index rows, read from its trailer the way the format is documented. */
function packRows(store: string): unknown[][] {
  return readdirSync(join(store, "packs")).flatMap((name) => {
    const bytes = readFileSync(join(store, "packs", name));
    const length = Number(bytes.readBigUInt64BE(bytes.length - 16));
    return JSON.parse(bytes.subarray(bytes.length - 16 - length, bytes.length - 16).toString()) as unknown[][];
  });
}

const SECRET = "canary-ckpt-3b8e1f0d9a";
const BASE64 = Buffer.from(SECRET).toString("base64");

describe("checkpoints and the session's secrets", () => {
  it("seals every file holding a secret (plain, base64, inside random bytes) and stores the rest as they are; all restore exactly", () => {
    const ws = temp("ckpt-ws-");
    const store = temp("ckpt-store-");
    const binary = Buffer.concat([randomBytes(40_000), Buffer.from(SECRET), randomBytes(40_000)]);
    // The premise: gzip alone keeps this secret in plain text (a stored block), so gzip is not enough.
    expect(gzipSync(binary, { level: 1 }).includes(Buffer.from(SECRET))).toBe(true);
    const plain = "ordinary text, no secret here\n".repeat(100);
    writeFileSync(join(ws, "leak.txt"), `the token is ${SECRET}\n`);
    writeFileSync(join(ws, "leak.b64"), `${BASE64}\n`);
    writeFileSync(join(ws, "blob.bin"), binary);
    writeFileSync(join(ws, "plain.txt"), plain);
    const checkpoints = new WorkspaceCheckpoints(store, ws, { secrets: [SECRET, BASE64] });
    const first = checkpoints.take()!;
    // A later checkpoint (gzip mode) seals too: random bytes around the secret again.
    const later = Buffer.concat([randomBytes(30_000), Buffer.from(SECRET), randomBytes(30_000)]);
    writeFileSync(join(ws, "later.bin"), later);
    const second = checkpoints.take()!;

    for (const file of filesUnder(store)) {
      const bytes = readFileSync(file);
      expect(bytes.includes(Buffer.from(SECRET)), file).toBe(false);
      expect(bytes.includes(Buffer.from(BASE64)), file).toBe(false);
    }
    const rows = packRows(store);
    const methodOf = (content: Buffer | string) => rows.find((r) => r[0] === hashBytes(Buffer.from(content)))?.[3];
    expect(methodOf(plain)).toBe(0);
    expect(methodOf(binary)).toBe(2);
    expect(methodOf(later)).toBe(2);
    expect(methodOf(`the token is ${SECRET}\n`)).toBe(2);
    expect(existsSync(join(store, "seal.key"))).toBe(true);
    expect(statSync(join(store, "seal.key")).mode & 0o777).toBe(0o600);

    const fresh = new WorkspaceCheckpoints(store, ws);
    expect(fresh.read(first.tree, "blob.bin")!.bytes!.equals(binary)).toBe(true);
    expect(fresh.read(first.tree, "leak.txt")!.bytes!.toString()).toBe(`the token is ${SECRET}\n`);
    expect(fresh.read(first.tree, "leak.b64")!.bytes!.toString()).toBe(`${BASE64}\n`);
    expect(fresh.read(first.tree, "plain.txt")!.bytes!.toString()).toBe(plain);
    expect(fresh.read(second.tree, "later.bin")!.bytes!.equals(later)).toBe(true);
    rmSync(join(ws, "blob.bin"));
    writeFileSync(join(ws, "leak.txt"), "changed\n");
    fresh.restore(first.tree);
    expect(readFileSync(join(ws, "blob.bin")).equals(binary)).toBe(true);
    expect(readFileSync(join(ws, "leak.txt"), "utf8")).toBe(`the token is ${SECRET}\n`);
  });

  it("stores nothing as it is when the secrets are not listed, and says what is wrong when a sealed blob's key is gone", () => {
    const ws = temp("ckpt-ws-");
    const store = temp("ckpt-store-");
    writeFileSync(join(ws, "a.txt"), "text ".repeat(1000));
    new WorkspaceCheckpoints(store, ws).take();
    expect(packRows(store).every((r) => r.length === 3)).toBe(true);

    const sealing = new PackStore(temp("ckpt-store-"), { secrets: [SECRET] });
    const pending = sealing.pending("raw");
    const hash = pending.add(Buffer.from(`x ${SECRET} y`));
    pending.commit();
    rmSync(join(sealing.dir, "seal.key"));
    expect(() => new PackStore(sealing.dir).read(hash)).toThrow(/sealing key .*seal\.key cannot be read/);
  });

  it("reads packs in the layout written before sealing existed (gzip'd rows and rows stored as they are)", () => {
    const store = temp("ckpt-store-");
    const zipped = Buffer.from("an old gzip'd blob\n".repeat(50));
    const raw = Buffer.from("an old blob stored as it is");
    const zippedBytes = gzipSync(zipped, { level: 1 });
    const index = Buffer.from(JSON.stringify([[hashBytes(zipped), 0, zippedBytes.length], [hashBytes(raw), zippedBytes.length, raw.length, 0]]));
    const trailer = Buffer.alloc(16);
    trailer.writeBigUInt64BE(BigInt(index.length), 0);
    Buffer.from("PNGPACK1").copy(trailer, 8);
    new PackStore(store);
    writeFileSync(join(store, "packs", "old.pack"), Buffer.concat([zippedBytes, raw, index, trailer]));
    const reader = new PackStore(store);
    expect(reader.read(hashBytes(zipped)).equals(zipped)).toBe(true);
    expect(reader.read(hashBytes(raw)).equals(raw)).toBe(true);
  });

  it("finds a needle wherever a plain indexOf does (short and long needles, at the edges, random text)", () => {
    const needles = ["tok4", SECRET, BASE64, [...SECRET].reverse().join(""), Buffer.from(SECRET).toString("hex")];
    const finder = new SecretFinder(needles);
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-=+/ ";
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 400; round++) {
      let text = "";
      const length = Math.floor(next() * 300);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      if (next() < 0.5) {
        const needle = needles[Math.floor(next() * needles.length)]!;
        const at = Math.floor(next() * (text.length + 1));
        // Sometimes cut short by one byte: a near miss must not count.
        const piece = next() < 0.3 ? needle.slice(0, -1) : needle;
        text = text.slice(0, at) + piece + text.slice(at);
      }
      const bytes = Buffer.from(text);
      expect(finder.finds(bytes), text).toBe(needles.some((n) => bytes.includes(Buffer.from(n))));
    }
    expect(finder.finds(Buffer.from(SECRET))).toBe(true);
    expect(finder.finds(Buffer.from(`${SECRET}`.slice(1)))).toBe(false);
    expect(new SecretFinder([]).finds(Buffer.from(SECRET))).toBe(false);
  });

  it("restores every file of a first checkpoint bigger than one write batch (the writer thread's batches)", () => {
    const ws = temp("ckpt-ws-");
    const store = temp("ckpt-store-");
    // 24 files of 400 KB: more than two 4 MB batches, each file's buffer handed to the writer thread.
    const contents = Array.from({ length: 24 }, () => randomBytes(400_000));
    contents.forEach((bytes, i) => writeFileSync(join(ws, `f${i}.bin`), bytes));
    const checkpoints = new WorkspaceCheckpoints(store, ws, { secrets: [SECRET] });
    const first = checkpoints.take()!;
    // The 24 files and the root folder's node, all stored as they are.
    expect(packRows(store).filter((r) => r[3] === 0)).toHaveLength(25);
    const fresh = new WorkspaceCheckpoints(store, ws);
    contents.forEach((bytes, i) => expect(fresh.read(first.tree, `f${i}.bin`)!.bytes!.equals(bytes), `f${i}.bin`).toBe(true));
    for (let i = 0; i < 24; i++) writeFileSync(join(ws, `f${i}.bin`), "changed");
    expect(fresh.restore(first.tree).written).toHaveLength(24);
    contents.forEach((bytes, i) => expect(readFileSync(join(ws, `f${i}.bin`)).equals(bytes), `f${i}.bin`).toBe(true));
  });

  it("writes a raw pack's batches on its thread at their positions, and reports a failed write", () => {
    const path = join(temp("ckpt-writer-"), "out.bin");
    const fd = openSync(path, "w");
    const writer = new PackWriter();
    const owned = Buffer.allocUnsafeSlow(3);
    owned.write("def");
    writer.write(fd, 3, [owned, Buffer.from("ghi")]);
    writer.write(fd, 0, [Buffer.from("abc")]);
    writer.drain();
    writer.close();
    closeSync(fd);
    expect(readFileSync(path, "utf8")).toBe("abcdefghi");

    // A descriptor open for reading only: every write to it fails.
    const readOnly = openSync(path, "r");
    const failing = new PackWriter();
    failing.write(readOnly, 0, [Buffer.from("lost")]);
    expect(() => failing.drain()).toThrow(/writing a checkpoint pack failed \(EBADF\)/);
    failing.close();
    closeSync(readOnly);
    expect(readFileSync(path, "utf8")).toBe("abcdefghi");
  });

  it("merges small packs into one (raw, gzip'd and sealed blobs kept as stored); a reader that knew the old packs still reads every blob", () => {
    const dir = temp("ckpt-store-");
    const store = new PackStore(dir, { secrets: [SECRET] });
    const blobs: Buffer[] = [];
    for (let i = 0; i < 6; i++) {
      const pending = store.pending(i % 2 === 0 ? "raw" : "compress");
      for (const text of [`blob ${i}`, `sealed ${i} ${SECRET}`]) {
        const bytes = Buffer.from(text);
        pending.add(bytes);
        blobs.push(bytes);
      }
      pending.commit();
    }
    const big = store.pending("raw");
    const large = randomBytes(300_000);
    // A copy: a raw pack hands an owned buffer to its writer thread (the caller's copy is emptied).
    big.add(Buffer.from(large));
    big.commit();
    const before = new PackStore(dir);
    for (const bytes of blobs) expect(before.read(hashBytes(bytes)).equals(bytes)).toBe(true);
    const methodsBefore = packRows(dir).map((r) => `${r[0]}:${r[3] ?? "gzip"}`).sort();

    expect(store.compact({ smallerThan: 100_000, atLeast: 10 })).toBe(0);
    expect(store.compact({ smallerThan: 100_000, atLeast: 6 })).toBe(6);
    expect(readdirSync(join(dir, "packs"))).toHaveLength(2);
    expect(packRows(dir).map((r) => `${r[0]}:${r[3] ?? "gzip"}`).sort()).toEqual(methodsBefore);
    for (const file of filesUnder(dir)) expect(readFileSync(file).includes(Buffer.from(SECRET)), file).toBe(false);
    // The reader opened before the merge still points at the removed packs: it finds every blob again.
    for (const bytes of [...blobs, large]) expect(before.read(hashBytes(bytes)).equals(bytes)).toBe(true);
    const fresh = new PackStore(dir);
    for (const bytes of [...blobs, large]) expect(fresh.read(hashBytes(bytes)).equals(bytes)).toBe(true);
  });
});
