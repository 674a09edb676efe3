/**
 * Project instructions: the AGENTS.md files people keep in their repositories (CLAUDE.md where a
 * folder has no AGENTS.md), from the repository root (the nearest folder up holding `.git`;
 * without one, the workspace alone) down to the workspace, outermost first, so the nearer and
 * more specific file comes later and wins where two disagree.
 *
 * Two steps, because the session's boundary depends on the first: `instructionCandidates` finds
 * the files by their paths (no content read); the boundary grants read access to the ones in the
 * parent folders that lie in the repository (the sandbox hides the workspace's parent otherwise);
 * then `readProjectInstructions` reads each through the session's mount table, like a file tool,
 * so a file the session may not see (a link into the data root or a home folder) is skipped.
 */
import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { accessAt, isInside, real, type MountTable } from "../environment/commands/mount-table.js";

/** A file larger than this is cut: instructions are meant to be read whole on every request. */
export const INSTRUCTION_FILE_LIMIT = 64 * 1024;

export interface InstructionCandidates {
  /** The repository root (the workspace itself when no folder up holds `.git`). */
  root: string;
  /** One file per folder that has one, outermost first (absolute, not resolved). */
  files: string[];
}

export interface InstructionFile {
  path: string;
  text: string;
  truncated: boolean;
}

export interface ProjectInstructions {
  loaded: InstructionFile[];
  /** Files found but not read, with why (outside the session's boundary, not a file). */
  skipped: { path: string; reason: string }[];
}

/** The folder holding `.git` at or above `workspace`, or undefined. */
function repositoryRoot(workspace: string): string | undefined {
  let dir = workspace;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The instruction files of `workspace` (a real, absolute path), outermost first. A workspace in
 * the data root (a temporary one) is its own root: nothing above it is the user's project.
 */
export function instructionCandidates(workspace: string, dataRoot: string): InstructionCandidates {
  const root = isInside(real(dataRoot), workspace) ? workspace : (repositoryRoot(workspace) ?? workspace);
  const folders: string[] = [];
  for (let dir = workspace; ; dir = dirname(dir)) {
    folders.unshift(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  const files: string[] = [];
  for (const folder of folders) {
    const chosen = ["AGENTS.md", "CLAUDE.md"].map((name) => join(folder, name)).find((path) => exists(path));
    if (chosen !== undefined) files.push(chosen);
  }
  return { root, files };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The files a session's boundary should let it read: those in the parent folders (the workspace
 * is visible already) whose real path stays inside the repository and outside `hiddenRoot` (the
 * data root), so a link never opens a path the boundary hides.
 */
export function instructionGrants(candidates: InstructionCandidates, workspace: string, hiddenRoot: string): string[] {
  const root = real(candidates.root);
  return candidates.files.filter((file) => {
    const path = real(file);
    return !isInside(workspace, file) && isInside(root, path) && !isInside(real(hiddenRoot), path);
  });
}

/** Reads the candidates through `table` (what the session may see), in their order. */
export function readProjectInstructions(files: readonly string[], table: MountTable): ProjectInstructions {
  const out: ProjectInstructions = { loaded: [], skipped: [] };
  for (const path of files) {
    const target = real(path);
    if (accessAt(table, target) === "absent") {
      out.skipped.push({ path, reason: "outside what this session may read" });
      continue;
    }
    try {
      if (!statSync(target).isFile()) {
        out.skipped.push({ path, reason: "not a file" });
        continue;
      }
      const bytes = readFileSync(target);
      const truncated = bytes.length > INSTRUCTION_FILE_LIMIT;
      out.loaded.push({ path, text: bytes.subarray(0, INSTRUCTION_FILE_LIMIT).toString("utf8"), truncated });
    } catch (error) {
      out.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

/**
 * The `{{AGENTS_MD}}` text: the agent's own AGENTS.md, then each project file under a heading
 * naming it (so the model knows where a rule came from and which one is nearer).
 */
export function withProjectInstructions(agentsMd: string, loaded: readonly InstructionFile[]): string {
  const parts = [agentsMd.trim()];
  for (const file of loaded) {
    const cut = file.truncated ? `\n\n(cut at ${INSTRUCTION_FILE_LIMIT / 1024} KiB; read the file for the rest)` : "";
    parts.push(`# Project instructions from ${file.path}\n\n${file.text.trim()}${cut}`);
  }
  return parts.filter((part) => part !== "").join("\n\n");
}
