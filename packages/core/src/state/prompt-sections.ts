/**
 * The generated lists that fill the section prompts: vault key names, skill lines, schedule
 * lines, memory indexes. Each says so when it is empty, so the model never mistakes a blank
 * for a broken prompt. Pure; they receive only what they may show (vault keys, never values).
 */
import type { SkillMeta } from "@penguin/skills";
import type { ScheduleSummary } from "./schedules.js";

export function renderVaultKeys(keys: readonly string[]): string {
  if (keys.length === 0) return "(no secrets stored yet)";
  return [...keys].sort().map((key) => `- ${key}`).join("\n");
}

/** One "- `name` — description" line per skill. */
export function renderSkillMetadata(skills: readonly SkillMeta[]): string {
  if (skills.length === 0) return "(no skills installed)";
  return skills.map((skill) => `- \`${skill.name}\` — ${skill.description}`).join("\n");
}

export function renderScheduleList(schedules: readonly ScheduleSummary[]): string {
  if (schedules.length === 0) return "(no scheduled tasks)";
  return schedules
    .map((s) => {
      if (s.problem !== undefined) return `- \`${s.name}\` — cannot be read: ${s.problem}`;
      const when = s.period !== undefined ? `every ${s.period}` : "runs once";
      return `- \`${s.name}\` — ${s.enabled ? "enabled" : "disabled"}, ${when}`;
    })
    .join("\n");
}

export function renderMemoryIndex(index: string | undefined): string {
  const text = index?.trim() ?? "";
  return text === "" ? "(empty: no memories saved yet)" : text;
}
