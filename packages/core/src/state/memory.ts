/**
 * Memory scopes and their indexes (SPEC §6).
 *
 *   memory/user/                          facts about the user, shared by every workspace
 *   memory/<safe-basename>-<8hex>/        one folder per real workspace path, with a
 *                                         `.workspace` file recording that path
 *
 * Only each scope's `MEMORY.md` index is injected into the prompt, capped (memory-index.ts);
 * the model keeps topic files and indexes itself with the normal file tools. Temporary
 * workspaces (`workspaces/tmp-<8hex>`) are thrown away, so they get the user scope only.
 * `loadMemoryIndex` creates the workspace scope folder and its `.workspace` file when
 * missing, so the folder the prompt names exists and can be traced back to its workspace.
 */
import { createHash } from "node:crypto";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { AgentPaths } from "./paths.js";
import { capMemoryIndex } from "./memory-index.js";
import { readOptional } from "./fs-utils.js";

export const MEMORY_INDEX_FILE = "MEMORY.md";
export const WORKSPACE_MARKER_FILE = ".workspace";
export const USER_MEMORY_SCOPE = "user";

export interface MemoryIndex {
  /** The user scope's MEMORY.md, capped ("" when there is none). */
  user: string;
  /** The workspace scope's MEMORY.md, capped; absent for temporary workspaces. */
  workspace?: string;
  /** Absolute path of the workspace scope folder; absent for temporary workspaces. */
  workspaceScopeDir?: string;
}

/** `<safe-basename>-<first 8 hex of sha256(realpath)>`. Pure. */
export function workspaceScopeName(realWorkspacePath: string): string {
  const safe = basename(realWorkspacePath).replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 48);
  const hash = createHash("sha256").update(realWorkspacePath).digest("hex").slice(0, 8);
  return `${safe === "" ? "workspace" : safe}-${hash}`;
}

export function userMemoryDir(paths: AgentPaths): string {
  return join(paths.memoryDir, USER_MEMORY_SCOPE);
}

export async function loadMemoryIndex(paths: AgentPaths, workspace: string, opts: { temporaryWorkspace: boolean }): Promise<MemoryIndex> {
  const user = await readIndex(userMemoryDir(paths));
  if (opts.temporaryWorkspace) return { user };
  const real = await realpath(workspace);
  const workspaceScopeDir = join(paths.memoryDir, workspaceScopeName(real));
  await mkdir(workspaceScopeDir, { recursive: true });
  await recordWorkspace(join(workspaceScopeDir, WORKSPACE_MARKER_FILE), real);
  return { user, workspace: await readIndex(workspaceScopeDir), workspaceScopeDir };
}

async function readIndex(scopeDir: string): Promise<string> {
  const text = await readOptional(join(scopeDir, MEMORY_INDEX_FILE));
  return text === undefined ? "" : capMemoryIndex(text).text;
}

async function recordWorkspace(file: string, realPath: string): Promise<void> {
  const current = await readOptional(file);
  if (current?.trim() !== realPath) await writeFile(file, `${realPath}\n`, "utf8");
}
