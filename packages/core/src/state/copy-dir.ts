/**
 * Recursive directory copy for skill installs. Written out (instead of `fs.cp`, which is
 * still experimental on Node 20) so the behaviour is pinned: regular files keep their mode,
 * symbolic links are recreated as links (never followed, so a skill cannot pull in files
 * from elsewhere), other special files are skipped.
 */
import { copyFile, mkdir, readdir, readlink, symlink } from "node:fs/promises";
import { join } from "node:path";

export async function copyDir(src: string, dst: string): Promise<void> {
  await mkdir(dst, { recursive: true });
  for (const entry of await readdir(src, { withFileTypes: true })) {
    const from = join(src, entry.name);
    const to = join(dst, entry.name);
    if (entry.isDirectory()) await copyDir(from, to);
    else if (entry.isFile()) await copyFile(from, to);
    else if (entry.isSymbolicLink()) await symlink(await readlink(from), to);
  }
}
