/**
 * The builtin skill library: `packages/skills/skills/<name>/SKILL.md`, shipped with the package.
 *
 * The folder is found relative to this module's own file (`../skills/`), which is the same
 * place from `src/library.ts` (tests, development) and from `dist/library.js` (the build), so
 * keep this file directly inside `src/`.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { scanSkillsDir } from "./scan.js";
import type { SkillMeta } from "./skill-meta.js";

const LIBRARY_DIR = resolve(fileURLToPath(new URL("../skills/", import.meta.url)));

/** Absolute path of the library folder. */
export function libraryDir(): string {
  return LIBRARY_DIR;
}

/** Every library skill, sorted by name. Throws SkillFileError if one is broken. */
export function listLibrarySkills(): SkillMeta[] {
  return scanSkillsDir(LIBRARY_DIR);
}
