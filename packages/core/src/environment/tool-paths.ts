/**
 * Paths as tools take and show them. A relative path resolves against the workspace, `~`
 * against the home directory; absolute paths are taken as given (the scratchpad archives
 * live outside the workspace, and tools are not a sandbox). Paths shown back to the model
 * are workspace-relative when they are inside it, so outputs stay short and portable.
 *
 * The two secret files (`.project_config.toml` with model credentials, `.vault.toml` with the
 * vault) are never read or shown by the file tools, whichever path leads to them.
 */
import { homedir } from "node:os";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";

export const SECRET_FILE_NAMES: readonly string[] = [".project_config.toml", ".vault.toml"];

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
  return SECRET_FILE_NAMES.includes(basename(path));
}
