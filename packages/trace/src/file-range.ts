/**
 * Reading a byte range of an open file whole: `readSync` may return less than asked, so every
 * reader of a file's tail (the writer's last stamp, a resume snapshot's key, the lines before a
 * closing compaction) loops the same way. One place for that loop, and for opening a file
 * that may be gone for such a read and closing it again.
 */
import { closeSync, openSync, readSync } from "node:fs";

/** `read` of `file` opened for reading, closed after; undefined when it cannot be opened or read. */
export function readOpenFile<T>(file: string, read: (fd: number) => T | undefined): T | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    return read(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

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
