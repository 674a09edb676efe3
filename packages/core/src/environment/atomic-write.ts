/**
 * Atomic file replacement: write a temporary file next to the target, then rename it over.
 *
 * A reader (or a crash) sees the old content or the new one, never half of either: rename
 * within one directory is atomic on POSIX filesystems, which is why the temporary file lives
 * in the target's own directory and not in /tmp. The temporary name is hidden and unique;
 * it is removed again when anything fails, so no debris is left behind.
 */
import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export function temporaryNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
}

export async function writeFileAtomic(
  target: string,
  data: string | Buffer,
  options: { mode?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const temp = temporaryNameFor(target);
  let created = false;
  try {
    options.signal?.throwIfAborted();
    const handle = await open(temp, "wx", options.mode ?? 0o644);
    created = true;
    try {
      await handle.writeFile(data);
      if (options.mode !== undefined) await handle.chmod(options.mode); // umask-proof
      await handle.sync();
    } finally {
      await handle.close();
    }
    options.signal?.throwIfAborted();
    await rename(temp, target);
    created = false;
  } finally {
    if (created) await unlink(temp).catch(() => undefined);
  }
}
