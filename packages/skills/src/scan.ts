/**
 * Reading skills folders: one skill directory (`readSkillDir`) or a folder of them
 * (`scanSkillsDir`). Both the builtin library and an agent's installed `skills/` are read by
 * this one rule, so they can never disagree about what counts as a skill:
 *   - entries starting with `.` are ignored (staging folders from an interrupted install);
 *   - plain files are ignored (a README next to the skills is fine);
 *   - every other directory must have an allowed name and a valid SKILL.md, or the whole
 *     scan fails with a SkillFileError naming it: a half-broken skill set is never loaded.
 * Synchronous on purpose: the folders are small and `listLibrarySkills()` is synchronous.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseSkillFile } from "./parse-skill.js";
import { SKILL_FILE, type SkillMeta } from "./skill-meta.js";
import { SkillFileError } from "./skill-file-error.js";

/** Reads `<dir>/SKILL.md`. Throws SkillFileError when it is missing or invalid. */
export function readSkillDir(dir: string): SkillMeta {
  const file = join(resolve(dir), SKILL_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (isNotFound(e)) {
      throw new SkillFileError({ file, problem: "missing", hint: "every skill folder needs a SKILL.md with front matter" });
    }
    throw e;
  }
  return parseSkillFile(text, file);
}

/** Every skill in a folder, sorted by name. A missing folder holds no skills. */
export function scanSkillsDir(dir: string): SkillMeta[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort()
    .map((name) => readSkillDir(join(dir, name)));
}

function isNotFound(e: unknown): boolean {
  return e instanceof Error && "code" in e && e.code === "ENOENT";
}
