/**
 * Paths confined to a directory (a session's workspace, the web app's folder): the only way
 * file routes turn a client-supplied path into a file system path.
 *
 * Refused before anything is read (400 `invalid_path`): absolute paths, drive letters, NUL
 * bytes and any `..` segment. Then the real path (symlinks resolved) must still be the
 * directory itself or inside it, so a symlink pointing out of the workspace is refused the
 * same way; and files are opened with O_NOFOLLOW on the final component, so a symlink swapped
 * in after the check is not followed either. A path that does not exist is a 404.
 */
import { constants, mkdirSync, openSync, realpathSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import { ApiError, notFound } from "../http/api-error.js";

export function checkRelative(relPath: string): string[] {
  if (relPath.includes("\0")) throw invalid("contains a NUL byte");
  if (isAbsolute(relPath) || /^[A-Za-z]:/.test(relPath) || relPath.startsWith("\\") || relPath.startsWith("/")) throw invalid("must be relative to the workspace");
  const segments = relPath.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw invalid("must not contain '..'");
  return segments;
}

export function realRoot(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    throw notFound("directory");
  }
}

export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The real path of an existing entry inside `dir`. */
export function resolveInside(dir: string, relPath: string): string {
  const root = realRoot(dir);
  const segments = checkRelative(relPath);
  let real: string;
  try {
    real = realpathSync(join(root, ...segments));
  } catch {
    throw notFound(`path ${relPath}`);
  }
  if (!isInside(root, real)) throw invalid("resolves outside the workspace");
  return real;
}

/**
 * Where a new or replaced file goes. Existing parents must resolve inside; missing parents
 * are created (fresh folders, so no symlink can be among them); an existing target must
 * resolve inside too (a dangling symlink is caught when the file is opened with O_NOFOLLOW).
 */
export function resolveForWrite(dir: string, relPath: string): string {
  const root = realRoot(dir);
  const segments = checkRelative(relPath);
  const name = segments.pop();
  if (name === undefined) throw invalid("names no file");
  let parent = root;
  let i = 0;
  for (; i < segments.length; i++) {
    let real: string;
    try {
      real = realpathSync(join(parent, segments[i] ?? ""));
    } catch {
      break;
    }
    if (!isInside(root, real)) throw invalid("resolves outside the workspace");
    parent = real;
  }
  if (i < segments.length) {
    parent = join(parent, ...segments.slice(i));
    mkdirSync(parent, { recursive: true });
  }
  const target = join(parent, name);
  let real: string | undefined;
  try {
    real = realpathSync(target);
  } catch {
    real = undefined;
  }
  if (real !== undefined && !isInside(root, real)) throw invalid("resolves outside the workspace");
  return target;
}

/** Opens a confined file for reading without following a final symlink. */
export function openNoFollow(path: string): number {
  try {
    return openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw notFound("file");
  }
}

function invalid(why: string): ApiError {
  return new ApiError(400, "invalid_path", `the path ${why}`, { field: "path" });
}
