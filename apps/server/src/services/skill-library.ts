/**
 * The builtin skill library as the Skills page lists it: core's `listLibrarySkills` (the
 * SKILL.md front matter of every library skill), grouped for display. The groups are a
 * presentation choice of the server, not a property of a skill, so they live here; a skill
 * no group names is listed under "Other", so a new library skill always shows up.
 */
import { listLibrarySkills, type SkillMeta } from "@penguin/core";

const GROUPS: readonly { name: string; skills: readonly string[] }[] = [
  { name: "Self-improvement", skills: ["agent-initialization", "benchmark-design", "agent-evaluation", "agent-optimization", "skill-porting"] },
  { name: "PenguinHarness", skills: ["penguin-cli", "penguin-sdk", "agenthub-models"] },
  { name: "Engineering", skills: ["software-engineering", "web-design", "remote-claude-code"] },
  { name: "Data and documents", skills: ["data-analysis", "firecrawl", "bento-slides", "humanizer"] },
  { name: "Local models", skills: ["vllm", "ollama", "llamafactory"] },
];

export interface LibrarySkillView {
  name: string;
  description: string;
  shortDescription?: string;
  shortDescriptionZh?: string;
  preinstall: boolean;
  version: number;
  updated?: string;
}

export function skillView({ dir: _dir, ...meta }: SkillMeta): LibrarySkillView {
  return meta;
}

export function librarySkill(name: string): SkillMeta | undefined {
  return listLibrarySkills().find((s) => s.name === name);
}

export function libraryGroups(): { name: string; skills: LibrarySkillView[] }[] {
  const all = listLibrarySkills();
  const placed = new Set<string>();
  const groups = GROUPS.map((g) => {
    const skills = all.filter((s) => g.skills.includes(s.name));
    for (const s of skills) placed.add(s.name);
    return { name: g.name, skills: skills.map(skillView) };
  }).filter((g) => g.skills.length > 0);
  const rest = all.filter((s) => !placed.has(s.name));
  return rest.length === 0 ? groups : [...groups, { name: "Other", skills: rest.map(skillView) }];
}
