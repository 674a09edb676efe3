// The local disk's readBytes: its read buffers start small and grow, so these check that the
// bytes come back whole and in order across every buffer size, and that the cap is exact.
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
});
