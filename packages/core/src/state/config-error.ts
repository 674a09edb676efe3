/**
 * ConfigError: the one error type for bad user-editable files (YAML, TOML, SKILL.md front
 * matter, JSON). It always names the file, and the line and field when known, and says what
 * to do, so a session never starts on a guess and the user can fix the file by hand.
 */
export interface ConfigErrorDetail {
  file: string;
  line?: number;
  column?: number;
  field?: string;
  /** What is wrong, in plain words. */
  problem: string;
  /** What the user should do about it. */
  hint?: string;
}

export class ConfigError extends Error {
  readonly detail: ConfigErrorDetail;

  constructor(detail: ConfigErrorDetail) {
    const where = [detail.file, detail.line !== undefined ? `line ${detail.line}` : undefined, detail.field !== undefined ? `field "${detail.field}"` : undefined]
      .filter(Boolean)
      .join(", ");
    super(`${where}: ${detail.problem}${detail.hint ? ` (${detail.hint})` : ""}`);
    this.name = "ConfigError";
    this.detail = detail;
  }
}
