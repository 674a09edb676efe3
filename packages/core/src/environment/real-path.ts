/**
 * The real path a file tool would touch: every symlink followed (`..` is resolved lexically
 * first, as the path is given), /proc's magic links (`/proc/self/root`, `/proc/<pid>/cwd`,
 * `/proc/self/fd/N`) included, since the kernel's realpath resolves them. A path that does not
 * exist yet is the real path of its nearest existing ancestor plus the rest, and a dangling
 * symlink is followed to where a write through it would land. The file tools check this path
 * against the session's mount table and then read and write it, never the path as given, so
 * what is checked is what is touched.
 */
import type { FileOperations } from "./file-operations.js";
import { basename, dirname, resolve } from "node:path";

/** As the kernel's limit of symlinks followed in one lookup. */
const MAX_LINK_HOPS = 40;

function missing(err: unknown): boolean {
  const code = err instanceof Error && "code" in err ? err.code : undefined;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** The real path of absolute `path` through `ops`; throws ELOOP-like errors for link cycles. */
export async function realPathOf(ops: Pick<FileOperations, "realpath" | "readlink">, path: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw Object.assign(new Error(`too many levels of symbolic links at ${path}`), { code: "ELOOP" });
  try {
    return await ops.realpath(path);
  } catch (err) {
    if (!missing(err)) throw err;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const candidate = resolve(await realPathOf(ops, parent, hops), basename(path));
  // The parent is real; the last part is either missing or a symlink leading somewhere missing.
  let target: string;
  try {
    if (ops.readlink === undefined) return candidate;
    target = await ops.readlink(candidate);
  } catch {
    return candidate;
  }
  return realPathOf(ops, resolve(dirname(candidate), target), hops + 1);
}
