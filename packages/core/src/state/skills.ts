/**
 * An agent's installed skills: `agent_state/skills/<name>/` (SPEC §11).
 *
 * Parsing and validation live in `@penguin/skills`, which sits below core and throws its own
 * SkillFileError; this module is the boundary that turns those into ConfigError, so callers
 * of core handle one error type for every bad file.
 *
 * `installSkill` copies a whole skill directory and replaces any installed skill of the same
 * name wholesale (files the new version no longer has disappear). The copy goes to a hidden
 * staging folder first; then the old folder is renamed aside and the new one renamed in, so
 * a crash never leaves a half-copied skill under its real name, only hidden leftovers
 * (`.install-*`, `.replaced-*`) that listing ignores.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { listLibrarySkills, readSkillDir, scanSkillsDir, SkillFileError, type SkillMeta } from "@penguin/skills";
import { ConfigError } from "./config-error.js";
import { copyDir } from "./copy-dir.js";
import { isNotFound } from "./fs-utils.js";
import type { AgentPaths } from "./paths.js";

export type { SkillMeta } from "@penguin/skills";

/** Validates `skillDir` (its name and SKILL.md), then installs it as `skills/<name>/`. */
export async function installSkill(paths: AgentPaths, skillDir: string): Promise<SkillMeta> {
  const meta = asConfigErrors(() => readSkillDir(skillDir));
  await mkdir(paths.skillsDir, { recursive: true });
  const tag = randomBytes(4).toString("hex");
  const staging = join(paths.skillsDir, `.install-${meta.name}-${tag}`);
  const previous = join(paths.skillsDir, `.replaced-${meta.name}-${tag}`);
  const target = join(paths.skillsDir, meta.name);
  try {
    await copyDir(meta.dir, staging);
    await moveIfPresent(target, previous);
    await rename(staging, target);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(previous, { recursive: true, force: true });
  }
  return { ...meta, dir: target };
}

/** The installed skills, sorted by name. A broken one is a ConfigError naming its SKILL.md. */
export async function listInstalledSkills(paths: AgentPaths): Promise<SkillMeta[]> {
  return asConfigErrors(() => scanSkillsDir(paths.skillsDir));
}

/** The library skills a new `default_agent` starts with (all but `preinstall: false`). */
export function preinstalledLibrarySkills(): SkillMeta[] {
  return preinstalledOf(asConfigErrors(() => listLibrarySkills()));
}

/** The skills not marked `preinstall: false`. Pure. */
export function preinstalledOf(skills: readonly SkillMeta[]): SkillMeta[] {
  return skills.filter((skill) => skill.preinstall);
}

async function moveIfPresent(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

function asConfigErrors<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof SkillFileError) throw new ConfigError(e.detail);
    throw e;
  }
}
