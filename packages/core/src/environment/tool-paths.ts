/**
 * Paths as tools take and show them. A relative path resolves against the workspace, `~`
 * against the home directory, and an absolute path is taken as given; what a path may reach
 * is decided after, on its real path, by the session's boundary (tools/file-target.ts and
 * commands/mount-table.ts). Paths shown back to the model are workspace-relative when they
 * are inside it, so outputs stay short and portable.
 *
 * The secret files are never read, written or shown by the file tools, whichever path leads
 * to them: `.project_config.toml` (model credentials), `.vault.toml` (the vault) and SQLite
 * databases with their journals (`*.db`, `*.db-wal`, `*.db-shm`: the server's users, logins
 * and projections). The rule goes by file name, so it holds wherever such a file lies.
 */
import { homedir } from "node:os";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";

export const SECRET_FILE_NAMES: readonly string[] = [".project_config.toml", ".vault.toml"];
/** Endings of database files and their write-ahead log and shared-memory companions. */
export const DATABASE_FILE_ENDINGS: readonly string[] = [".db", ".db-wal", ".db-shm"];

export function resolveToolPath(workspaceDir: string, path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(workspaceDir, path);
}

export function displayPath(workspaceDir: string, absolute: string): string {
  const rel = relative(workspaceDir, absolute);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return absolute;
  return rel;
}

export function isSecretFile(path: string): boolean {
  const name = basename(path);
  return SECRET_FILE_NAMES.includes(name) || isDatabaseFile(name);
}

export function isDatabaseFile(path: string): boolean {
  const name = basename(path).toLowerCase();
  return DATABASE_FILE_ENDINGS.some((ending) => name.endsWith(ending));
}
