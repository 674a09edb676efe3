/**
 * Which file a command name runs: the one lookup both the stdio MCP launcher (the file that is
 * spawned and checked) and a host's allowlist (the files its entries name) use, so the two can
 * never disagree. Kept apart from the MCP client so a host can import it without the MCP SDK.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, resolve } from "node:path";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path a command runs from: a path (anything with a slash) against `cwd`, a bare
 * name through the absolute entries of `searchPath`. Undefined when no executable file is found.
 */
export function findExecutable(command: string, cwd: string, searchPath: string | undefined): string | undefined {
  if (command.includes("/")) {
    const path = resolve(cwd, command);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const dir of (searchPath ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const path = resolve(dir, command);
    if (isExecutableFile(path)) return path;
  }
  return undefined;
}

/** The real path of an existing file (symlinks followed), else undefined. */
export function existingRealPath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

