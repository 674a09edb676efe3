/**
 * The checks a server makes on its data root before it writes anything there, so that a root
 * it cannot use stops it with a sentence naming the path and what to do, instead of the first
 * failing write's errno surfacing later from wherever it happened (the lock file, facts.db).
 *
 * A read-only root (a read-only mount, or a folder the server's user may not write) is told
 * as such. Root ignores permission bits, but not a read-only mount: `access(W_OK)` answers
 * EROFS there for every user, so one check covers both.
 */
import { accessSync, constants, mkdirSync } from "node:fs";

export class DataRootUnusableError extends Error {
  readonly path: string;
  readonly code: string | undefined;

  constructor(path: string, message: string, code: string | undefined) {
    super(message);
    this.name = "DataRootUnusableError";
    this.path = path;
    this.code = code;
  }
}

/** Makes `root` if missing; throws DataRootUnusableError when the server cannot write into it. */
export function ensureDataRootWritable(root: string): void {
  try {
    mkdirSync(root, { recursive: true });
    accessSync(root, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EROFS") {
      throw new DataRootUnusableError(root, `the data root ${root} is on a read-only file system; the server writes its database, traces and workspaces there: remount it read-write, or start with another data root (--root or PENGUIN_HOME)`, code);
    }
    if (code === "EACCES" || code === "EPERM") {
      throw new DataRootUnusableError(root, `the data root ${root} is read-only for this user; the server writes its database, traces and workspaces there: give this user write access, or start with another data root (--root or PENGUIN_HOME)`, code);
    }
    throw error;
  }
}
