/**
 * What a skill is, once its SKILL.md has been read: the metadata the prompt and the UIs use,
 * plus the directory it lives in. The body of SKILL.md is not kept: the model reads the file
 * itself with `read_file` when it decides the skill applies, so only `name` and `description`
 * ever reach the system prompt.
 *
 * The directory name is the skill's identity (`skills/<name>/`); it must match
 * `SKILL_DIR_NAME`, and it wins over any `name` written in the front matter, so renaming a
 * folder renames the skill and two skills can never share a name.
 */

/** Allowed skill directory names: letters, digits, `_` and `-`. */
export const SKILL_DIR_NAME = /^[A-Za-z0-9_-]+$/;

/** The file every skill directory must hold. */
export const SKILL_FILE = "SKILL.md";

export interface SkillMeta {
  /** The directory name (it wins over the front matter's `name`). */
  name: string;
  /** One or two sentences saying when to use the skill; injected into the system prompt. */
  description: string;
  /** A short label for UIs. */
  shortDescription?: string;
  /** The Chinese short label for UIs. */
  shortDescriptionZh?: string;
  /** `false` = installed only by hand, never seeded into a new default agent. */
  preinstall: boolean;
  /** Integer revision of the skill text, starting at 1. */
  version: number;
  /** Free-form date of the last revision, as written. */
  updated?: string;
  /** Absolute path of the skill directory. */
  dir: string;
}
