/**
 * The data root check a session-running command makes before core writes anything there, so
 * a read-only root (a read-only mount, or a folder this user may not write) is said plainly,
 * naming the path, instead of surfacing as whichever write failed first (a recursive mkdir on
 * a read-only mount even reports ENOENT). Root ignores permission bits but not a read-only
 * mount: `access(W_OK)` answers EROFS there, so one check covers both.
 */
import { accessSync, constants, mkdirSync } from "node:fs";
import { CliFailure } from "../cli-error.js";
import { EXIT } from "../exit-codes.js";

/** Makes `root` if missing; a CliFailure (exit 1) naming it when it cannot be written. */
export function ensureWritableRoot(root: string): void {
  try {
    mkdirSync(root, { recursive: true });
    accessSync(root, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const fix = "penguin writes its traces, agent state and workspaces there: make it writable, or use another data root (--root or PENGUIN_HOME)";
    if (code === "EROFS") throw new CliFailure(`the data root ${root} is on a read-only file system; ${fix}`, EXIT.failed);
    if (code === "EACCES" || code === "EPERM") throw new CliFailure(`the data root ${root} is read-only for this user; ${fix}`, EXIT.failed);
    throw error;
  }
}
