/**
 * Reading a byte range of an open file whole: `readSync` may return less than asked, so every
 * reader of a file's tail (the writer's last stamp, a resume snapshot's key, the lines before a
 * closing compaction) loops the same way. One place for that loop.
 */
import { readSync } from "node:fs";

/** The bytes of `fd` from `from`, up to `length` of them: fewer only where the file ends first. */
export function readRange(fd: number, from: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buffer, got, length - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buffer : buffer.subarray(0, got);
}
