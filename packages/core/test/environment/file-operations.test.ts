// The local disk's readBytes: its read buffers start small and grow, so these check that the
// bytes come back whole and in order across every buffer size, and that the cap is exact; and
// that a stat's size given as `expectedSize` ends the read there (0 still reads to the end).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localFileOperations } from "../../src/environment/file-operations.js";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A file of `size` bytes where every position holds a different pattern than its neighbours. */
function patterned(size: number): { path: string; bytes: Buffer } {
  dir = mkdtempSync(join(tmpdir(), "penguin-read-bytes-"));
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  const path = join(dir, "data.bin");
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe("localFileOperations.readBytes", () => {
  it("reads a small file whole", async () => {
    const { path, bytes } = patterned(17);
    const read = await localFileOperations.readBytes(path, 8 * 1024 * 1024, new AbortController().signal);
    expect(read.equals(bytes)).toBe(true);
  });

  it("reads a file larger than every read buffer whole and in order", async () => {
    const { path, bytes } = patterned(3 * 1024 * 1024 + 4099);
    const read = await localFileOperations.readBytes(path, 8 * 1024 * 1024, new AbortController().signal);
    expect(read.length).toBe(bytes.length);
    expect(read.equals(bytes)).toBe(true);
  });

  it("stops at exactly maxBytes, also when the cap falls inside a read buffer", async () => {
    const { path, bytes } = patterned(2 * 1024 * 1024);
    for (const cap of [1, 65_535, 65_536, 65_537, 200_001, 1_500_000]) {
      const read = await localFileOperations.readBytes(path, cap, new AbortController().signal);
      expect(read.equals(bytes.subarray(0, cap))).toBe(true);
    }
  });

  it("reads an empty file as no bytes", async () => {
    const { path } = patterned(0);
    const read = await localFileOperations.readBytes(path, 1024, new AbortController().signal);
    expect(read.length).toBe(0);
  });

  it("ends the read at expectedSize, the size a stat reported, also for a file that grew since", async () => {
    const { path, bytes } = patterned(300_000);
    for (const expected of [1, 17, 65_536, 299_999]) {
      const read = await localFileOperations.readBytes(path, 8 * 1024 * 1024, new AbortController().signal, expected);
      expect(read.equals(bytes.subarray(0, expected))).toBe(true);
    }
    const whole = await localFileOperations.readBytes(path, 8 * 1024 * 1024, new AbortController().signal, 300_000);
    expect(whole.equals(bytes)).toBe(true);
  });

  it("keeps maxBytes over a larger expectedSize, and reads to the end when the size is unknown (0) or larger than the file", async () => {
    const { path, bytes } = patterned(100_000);
    const capped = await localFileOperations.readBytes(path, 4096, new AbortController().signal, 100_000);
    expect(capped.equals(bytes.subarray(0, 4096))).toBe(true);
    const sizeUnknown = await localFileOperations.readBytes(path, 8 * 1024 * 1024, new AbortController().signal, 0);
    expect(sizeUnknown.equals(bytes)).toBe(true);
    const shrunk = await localFileOperations.readBytes(path, 8 * 1024 * 1024, new AbortController().signal, 250_000);
    expect(shrunk.equals(bytes)).toBe(true);
  });
});
