/**
 * The common first step of the file tools: resolve the path to the real one it leads to
 * (real-path.ts), refuse what the session's boundary does not grant (its mount table's answer
 * for that real path: absent, or read-only for a write; the same answer a command would get),
 * refuse the secret files (by the name given and by the name a symlink leads to), and look the
 * file up. The tools then read and write the real path, never the one given. Also the shared
 * text checks: the 8 MiB scan cap and binary detection.
 */
import type { FileInfo, FileOperations } from "../file-operations.js";
import { describeFsError } from "../file-operations.js";
import { accessAt, type MountTable } from "../commands/mount-table.js";
import { realPathOf } from "../real-path.js";
import { displayPath, isDatabaseFile, isSecretFile, resolveToolPath } from "../tool-paths.js";

/**
 * The session's boundary as the file tools see it: its mount table, computed when asked (the
 * folders it names may appear during the session). Absent: every path the host user can reach.
 */
export type FileBoundary = () => MountTable;

/** Bytes of a file the text tools look at. */
export const SCAN_CAP_BYTES = 8 * 1024 * 1024;
/** Bytes inspected for a NUL byte when deciding whether a file is binary. */
const BINARY_SNIFF_BYTES = 8192;

export type FileTarget =
  | {
      ok: true;
      absolute: string;
      /**
       * The real path (symlinks followed; for a missing file, its nearest existing ancestor's real
       * path plus the rest): what was checked against the boundary, and what is read and written.
       */
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

function outsideRefusal(shown: string): string {
  return `No such file or directory: ${shown} is outside what this session may touch (its workspace, scratchpad and shared_env, and read-only agent_state and system folders). Work with files inside the workspace.`;
}

function readOnlyRefusal(shown: string): string {
  return `Read-only file system: ${shown} can be read but not changed by this session. agent_state (AGENTS.md, system_config.yaml, skills, schedules) is changed by people through the CLI or the API, and system folders are read-only; write inside the workspace instead.`;
}

/**
 * Resolves and inspects a file. `info` is undefined when the file does not exist (an error
 * unless `allowMissing`). Directories and special files are errors. `write` asks for write
 * access at the real path; otherwise read access is enough.
 */
export async function locateFile(
  ops: FileOperations,
  workspaceDir: string,
  path: string,
  options: { allowMissing: boolean; write?: boolean; boundary?: FileBoundary | undefined },
): Promise<FileTarget> {
  const absolute = resolveToolPath(workspaceDir, path);
  const shown = displayPath(workspaceDir, absolute);
  if (isSecretFile(absolute)) return { ok: false, error: secretRefusal(shown, absolute) };
  let real: string;
  try {
    real = await realPathOf(ops, absolute);
  } catch (err) {
    return { ok: false, error: describeFsError(err, shown) };
  }
  if (options.boundary !== undefined) {
    const access = accessAt(options.boundary(), real);
    if (access === "absent") return { ok: false, error: outsideRefusal(shown) };
    if (access === "read" && options.write === true) return { ok: false, error: readOnlyRefusal(shown) };
  }
  if (isSecretFile(real)) return { ok: false, error: secretRefusal(shown, real) };
  let info: FileInfo;
  try {
    info = await ops.stat(real);
  } catch (err) {
    if (isMissing(err) && options.allowMissing) return { ok: true, absolute, real, shown, info: undefined };
    return { ok: false, error: describeFsError(err, shown) };
  }
  if (info.kind === "directory") {
    return { ok: false, error: `${shown} is a directory, not a file (list it with exec_command, e.g. ls).` };
  }
  if (info.kind === "other") return { ok: false, error: `${shown} is not a regular file (a device, socket or pipe).` };
  return { ok: true, absolute, real, shown, info };
}

/** A NUL byte near the start marks a binary file (as git and grep decide). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export function binaryRefusal(shown: string, size: number): string {
  return `${shown} looks like a binary file (${size} bytes) and is not shown. Use read_image for images, or inspect it with exec_command (file, xxd, strings).`;
}
