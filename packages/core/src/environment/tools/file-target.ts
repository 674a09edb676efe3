/**
 * The common first step of the file tools: resolve the path, refuse the secret files (by the
 * name given and by the name a symlink leads to), and look the file up. Also the shared text
 * checks: the 8 MiB scan cap and binary detection.
 */
import type { FileInfo, FileOperations } from "../file-operations.js";
import { describeFsError } from "../file-operations.js";
import { displayPath, isDatabaseFile, isSecretFile, resolveToolPath } from "../tool-paths.js";

/** Bytes of a file the text tools look at. */
export const SCAN_CAP_BYTES = 8 * 1024 * 1024;
/** Bytes inspected for a NUL byte when deciding whether a file is binary. */
const BINARY_SNIFF_BYTES = 8192;

export type FileTarget =
  | {
      ok: true;
      absolute: string;
      /** Where writes go: the symlink's target for an existing link (so the link survives), else `absolute`. */
      real: string;
      shown: string;
      info: FileInfo | undefined;
    }
  | { ok: false; error: string };

function secretRefusal(shown: string, real: string): string {
  const what = isDatabaseFile(real) ? "it is a database (user accounts, logins, session records)" : "it holds secrets (model credentials or vault values)";
  return `Refusing to access ${shown}: ${what}, and the file tools never read or write it. Leave it alone and work with other files.`;
}

function isMissing(err: unknown): boolean {
  return err instanceof Error && "code" in err && err.code === "ENOENT";
}

/**
 * Resolves and inspects a file. `info` is undefined when the file does not exist (an error
 * unless `allowMissing`). Directories and special files are errors.
 */
export async function locateFile(
  ops: FileOperations,
  workspaceDir: string,
  path: string,
  options: { allowMissing: boolean },
): Promise<FileTarget> {
  const absolute = resolveToolPath(workspaceDir, path);
  const shown = displayPath(workspaceDir, absolute);
  if (isSecretFile(absolute)) return { ok: false, error: secretRefusal(shown, absolute) };
  let info: FileInfo;
  try {
    info = await ops.stat(absolute);
  } catch (err) {
    if (isMissing(err) && options.allowMissing) return { ok: true, absolute, real: absolute, shown, info: undefined };
    return { ok: false, error: describeFsError(err, shown) };
  }
  if (info.kind === "directory") {
    return { ok: false, error: `${shown} is a directory, not a file (list it with exec_command, e.g. ls).` };
  }
  if (info.kind === "other") return { ok: false, error: `${shown} is not a regular file (a device, socket or pipe).` };
  let real: string;
  try {
    real = await ops.realpath(absolute);
  } catch (err) {
    return { ok: false, error: describeFsError(err, shown) };
  }
  if (isSecretFile(real)) return { ok: false, error: secretRefusal(shown, real) };
  return { ok: true, absolute, real, shown, info };
}

/** A NUL byte near the start marks a binary file (as git and grep decide). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export function binaryRefusal(shown: string, size: number): string {
  return `${shown} looks like a binary file (${size} bytes) and is not shown. Use read_image for images, or inspect it with exec_command (file, xxd, strings).`;
}
