/**
 * The filesystem seam of the file tools (read_file, edit_file, write_file, read_image).
 *
 * Tools touch files only through `FileOperations`, so a host can point them at another
 * filesystem (a container, a remote machine) without touching tool logic. The default is
 * the local disk via node:fs. Operations may throw; the tools turn every throw into a
 * `failed` result with a readable message (`describeFsError`).
 */
import { mkdir, open, readlink, realpath, stat } from "node:fs/promises";
import { writeFileAtomic } from "./atomic-write.js";

export interface FileInfo {
  kind: "file" | "directory" | "other";
  size: number;
  /** Permission bits. */
  mode: number;
}

export interface FileOperations {
  stat(path: string): Promise<FileInfo>;
  realpath(path: string): Promise<string>;
  /** The target of a symlink (throws when `path` is not one); absent: symlinks are followed by `realpath` only. */
  readlink?(path: string): Promise<string>;
  /**
   * At most `maxBytes` bytes from the start of a file. `expectedSize`, the size a stat of the
   * file just reported, ends the read at that size (as `fs.readFile` does) instead of one more
   * read to find the end: a file that grew since is read to that size. Without it, or when it
   * is 0 (files like /proc's report 0), the file is read to its end.
   */
  readBytes(path: string, maxBytes: number, signal: AbortSignal, expectedSize?: number): Promise<Buffer>;
  /** Creates or replaces a file atomically (never leaves a partial file or a temp file). */
  writeAtomic(path: string, data: string, options: { mode?: number; signal: AbortSignal }): Promise<void>;
  /** `mkdir -p`. */
  makeDirectory(path: string): Promise<void>;
}

/**
 * Read buffers start small and double while the file keeps filling them: most files a tool
 * reads are small, and a 1 MiB buffer per read (zeroed, then mostly thrown away) cost more
 * than the read itself. The buffers are not zeroed, since only the bytes read are kept.
 */
const FIRST_READ_CHUNK = 64 * 1024;
const MAX_READ_CHUNK = 1024 * 1024;

export const localFileOperations: FileOperations = {
  async stat(path) {
    const s = await stat(path);
    return { kind: s.isFile() ? "file" : s.isDirectory() ? "directory" : "other", size: s.size, mode: s.mode & 0o7777 };
  },
  realpath(path) {
    return realpath(path);
  },
  readlink(path) {
    return readlink(path);
  },
  async readBytes(path, maxBytes, signal, expectedSize) {
    const sizeKnown = expectedSize !== undefined && expectedSize > 0;
    const limit = sizeKnown ? Math.min(maxBytes, expectedSize) : maxBytes;
    const handle = await open(path, "r");
    try {
      const chunks: Buffer[] = [];
      let total = 0;
      let chunk = sizeKnown ? MAX_READ_CHUNK : FIRST_READ_CHUNK;
      while (total < limit) {
        signal.throwIfAborted();
        const buf = Buffer.allocUnsafe(Math.min(chunk, limit - total));
        const { bytesRead } = await handle.read(buf, 0, buf.length, total);
        if (bytesRead === 0) break;
        chunks.push(buf.subarray(0, bytesRead));
        total += bytesRead;
        if (bytesRead === buf.length) chunk = Math.min(chunk * 2, MAX_READ_CHUNK);
      }
      return Buffer.concat(chunks);
    } finally {
      await handle.close();
    }
  },
  writeAtomic(path, data, options) {
    return writeFileAtomic(path, data, options);
  },
  async makeDirectory(path) {
    await mkdir(path, { recursive: true });
  },
};

/** A readable message for a filesystem error, naming the path the model gave. */
export function describeFsError(err: unknown, shownPath: string): string {
  const code = err instanceof Error && "code" in err ? String(err.code) : undefined;
  switch (code) {
    case "ENOENT":
      return `File not found: ${shownPath}`;
    case "EACCES":
    case "EPERM":
      return `Permission denied: ${shownPath}`;
    case "EISDIR":
      return `${shownPath} is a directory`;
    case "ENOTDIR":
      return `A parent of ${shownPath} is not a directory`;
    default:
      return `Cannot access ${shownPath}: ${err instanceof Error ? err.message : String(err)}`;
  }
}
