/**
 * Whole-file writes that never leave a half-written file behind: the data goes to a
 * temporary file next to the target (same folder, so the same file system), is flushed to
 * disk, then renamed over the target, which readers see all at once. The temporary file is
 * created with the final permissions, so a secret is never readable by others even briefly.
 * `sync: false` skips the flush, for files a crash may lose (a cache that is checked when read).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export async function writeFileAtomic(file: string, data: string, mode = 0o644, options: { sync?: boolean } = {}): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const handle = await open(tmp, "wx", mode);
    try {
      await handle.writeFile(data, "utf8");
      if (options.sync !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(tmp, mode);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** True when `entry` (a name in the same folder) is a temporary file of a write of `name`, finished or not. */
export function isAtomicTempOf(name: string, entry: string): boolean {
  return entry.startsWith(`.${name}.`) && entry.endsWith(".tmp") && /^[0-9a-f]{8}$/.test(entry.slice(name.length + 2, -4));
}
