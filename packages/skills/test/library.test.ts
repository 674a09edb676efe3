// The builtin library: every SKILL.md parses and validates, the required skills are present,
// and each one is a real procedure rather than a stub.
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { libraryDir, listLibrarySkills, splitFrontMatter } from "../src/index.js";

const REQUIRED = [
  "agent-evaluation",
  "agent-initialization",
  "agent-optimization",
  "benchmark-design",
  "data-analysis",
  "penguin-cli",
  "penguin-sdk",
  "software-engineering",
];

describe("the skill library", () => {
  const skills = listLibrarySkills();

  it("is found in the package's skills/ folder, relative to the module", () => {
    expect(basename(libraryDir())).toBe("skills");
    expect(skills.every((s) => s.dir === join(libraryDir(), s.name))).toBe(true);
  });

  it("holds every required skill", () => {
    expect(skills.map((s) => s.name)).toEqual(expect.arrayContaining(REQUIRED));
  });

  it.each(REQUIRED)("%s has valid, substantive metadata and body", (name) => {
    const skill = skills.find((s) => s.name === name);
    expect(skill).toBeDefined();
    if (skill === undefined) return;
    expect(skill.description.length).toBeGreaterThan(60);
    expect(skill.description).not.toMatch(/\n/);
    expect(skill.shortDescription).toBeTruthy();
    expect(skill.shortDescriptionZh).toBeTruthy();
    expect(skill.version).toBeGreaterThanOrEqual(1);
    const text = readFileSync(join(skill.dir, "SKILL.md"), "utf8");
    const body = splitFrontMatter(text)?.body ?? "";
    expect(body.length).toBeGreaterThan(2500);
    expect(body).toMatch(/^## /m);
    // The front matter's name, when given, agrees with the folder.
    expect(text).toMatch(new RegExp(`^name: ${name}$`, "m"));
  });

  it("teaches the project's real commands", () => {
    const body = (name: string) => readFileSync(join(libraryDir(), name, "SKILL.md"), "utf8");
    expect(body("penguin-cli")).toContain("penguin run -m");
    expect(body("penguin-cli")).toContain("--json");
    expect(body("penguin-cli")).toContain("penguin chat --resume");
    expect(body("penguin-cli")).toContain("penguin config model add");
    expect(body("penguin-cli")).toContain("penguin config vault set");
    expect(body("penguin-sdk")).toMatch(/createAgent[\s\S]*agent\.createSession[\s\S]*session\.run[\s\S]*agent\.resumeSession/);
    expect(body("benchmark-design")).toContain("benchmark_config.toml");
    expect(body("benchmark-design")).toContain("scoreboard.yaml");
    expect(body("agent-evaluation")).toContain("penguin run --agent-id");
    expect(body("agent-optimization")).toMatch(/strictly higher/);
  });
});
