/**
 * SkillFileError: a SKILL.md (or a skills folder) that cannot be used, with the file, line
 * and field when known.
 *
 * This package sits below `@penguin/core`, so it cannot throw core's `ConfigError`. The
 * `detail` here has exactly the shape of core's `ConfigErrorDetail` and the message is
 * formatted the same way; core converts one into the other at its boundary
 * (`core/src/state/skills.ts`), so callers of core only ever see `ConfigError`.
 */
export interface SkillFileErrorDetail {
  file: string;
  line?: number;
  column?: number;
  field?: string;
  /** What is wrong, in plain words. */
  problem: string;
  /** What the user should do about it. */
  hint?: string;
}

export class SkillFileError extends Error {
  readonly detail: SkillFileErrorDetail;

  constructor(detail: SkillFileErrorDetail) {
    const where = [
      detail.file,
      detail.line !== undefined ? `line ${detail.line}` : undefined,
      detail.field !== undefined ? `field "${detail.field}"` : undefined,
    ]
      .filter((part) => part !== undefined)
      .join(", ");
    super(`${where}: ${detail.problem}${detail.hint !== undefined ? ` (${detail.hint})` : ""}`);
    this.name = "SkillFileError";
    this.detail = detail;
  }
}
