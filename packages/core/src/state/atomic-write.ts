/**
 * Whole-file writes that never leave a half-written file behind: the data goes to a
 * temporary file next to the target (same folder, so the same file system), is flushed to
 * disk, then renamed over the target, which readers see all at once. The temporary file is
 * created with the final permissions, so a secret is never readable by others even briefly.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export async function writeFileAtomic(file: string, data: string, mode = 0o644): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const handle = await open(tmp, "wx", mode);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
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
