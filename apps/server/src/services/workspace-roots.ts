/**
 * Where a session's workspace may lie, and which files no file route ever serves.
 *
 * A workspace is where the file routes read and write on a user's behalf, so it must not be
 * a place holding other people's secrets. The rules, checked on the real path (symlinks
 * resolved, so a link inside a root pointing out is judged by where it leads):
 *
 * - never the data root, nor any folder containing it (`/`, a parent of the data root):
 *   those hold every project's API keys, vaults, traces and the database;
 * - inside the data root only within the session's own agent's `workspaces/` folder
 *   (strictly inside: the folder itself holds the agent's other temporary workspaces);
 * - otherwise under one of the server's workspace roots: the admin setting
 *   `workspaceRoots`, else the roots the server was started with, and always the agent's
 *   own `workspaces/` folder (where core makes temporary workspaces).
 *
 * The same rules are applied when a session is created (SessionManager.create), again when
 * a file route serves a stored session's workspace (a session indexed from a CLI trace, or
 * one created before the roots changed), and by the directory browser.
 *
 * Secret files (`.project_config.toml`, `.vault.toml`, SQLite databases and their journals,
 * the initial admin password) are refused by name, on both the requested and the resolved
 * name, by every file route, and left out of listings.
 */
import { realpathSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import { ApiError } from "../http/api-error.js";
import { isInside } from "./confined-path.js";

const SECRET_NAMES = new Set([".project_config.toml", ".vault.toml", "initial-admin-password", "server.lock"]);
const DATABASE_NAME = /\.(db|sqlite|sqlite3)(-wal|-shm|-journal)?$/i;

/** Whether a file name is one no file route may read, write or list. */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name) || DATABASE_NAME.test(name);
}

/** Refuses (400 `invalid_path`) a path whose requested or real final name is a secret file. */
export function refuseSecret(requested: string, real?: string): void {
  const names = [basename(requested), ...(real === undefined ? [] : [basename(real)])];
  const hit = names.find(isSecretName);
  if (hit !== undefined) throw new ApiError(400, "invalid_path", `the path names ${hit}, which holds secrets and is never served or written through the API`, { field: "path" });
}

export class WorkspaceRoots {
  readonly #dataRoot: string;
  readonly #configured: () => readonly string[];

  /** `configured` is read on every check, so an admin's change applies at once. */
  constructor(dataRoot: string, configured: () => readonly string[]) {
    this.#dataRoot = dataRoot;
    this.#configured = configured;
  }

  /** The roots for an agent (configured ones first, then its own `workspaces/` folder), as given. */
  roots(agentWorkspaceDirs: readonly string[]): string[] {
    return [...new Set([...this.#configured(), ...agentWorkspaceDirs])];
  }

  /**
   * The real path of `requested` if it may be a workspace of an agent whose `workspaces/`
   * folder is `agentWorkspacesDir`; a 400 naming the rule otherwise. `field` names the
   * input at fault (`workspace` on create, `path` in the directory browser).
   */
  confine(requested: string, agentWorkspaceDirs: readonly string[], field = "workspace"): string {
    const refuse = (why: string) => new ApiError(400, "invalid_path", `the workspace ${requested} ${why}`, { field });
    if (!isAbsolute(requested)) throw refuse("must be an absolute path on the server");
    const real = realOrUndefined(requested);
    if (real === undefined) throw refuse("does not exist on the server");
    const why = this.#violation(real, agentWorkspaceDirs);
    if (why !== undefined) throw refuse(why);
    return real;
  }

  /** Whether `real` (already a real path) is allowed; the reason when not. */
  #violation(real: string, agentWorkspaceDirs: readonly string[]): string | undefined {
    const data = realOrUndefined(this.#dataRoot) ?? this.#dataRoot;
    if (isInside(real, data)) return "is the server's data root or contains it; choose a folder under a workspace root";
    const agentDirs = agentWorkspaceDirs.flatMap((d) => realOrUndefined(d) ?? []);
    if (isInside(data, real)) {
      return agentDirs.some((d) => real !== d && isInside(d, real)) ? undefined : "lies inside the server's data root, outside this agent's workspaces folder";
    }
    const roots = [...this.#configured().flatMap((r) => realOrUndefined(r) ?? []), ...agentDirs];
    if (roots.some((r) => isInside(r, real))) return undefined;
    const named = this.#configured().length === 0 ? "none are configured besides the agent's workspaces folder" : this.#configured().join(", ");
    return `is outside the server's workspace roots (${named}); an admin can add roots in the web's Settings → Workspace roots (the server setting workspaceRoots)`;
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
