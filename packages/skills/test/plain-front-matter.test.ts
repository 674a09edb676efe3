// The fast front-matter reading (plain-front-matter.ts) against the YAML parser it stands in
// for: wherever it answers, its fields are the parser's, and every library skill reads the
// same through both paths. Where it declines, parseSkillFile falls back to the parser.
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { libraryDir, listLibrarySkills, parseSkillFile, splitFrontMatter } from "../src/index.js";
import { parseWithYaml } from "../src/parse-skill.js";
import { plainFrontMatter } from "../src/plain-front-matter.js";

/** What the YAML parser reads from the front matter, as the fast path's map. */
function yamlFields(text: string): Map<string, unknown> {
  return new Map(Object.entries((parse(text) ?? {}) as Record<string, unknown>));
}

describe("plain front matter", () => {
  it("reads every library skill without the YAML parser, and to the same meta", () => {
    const skills = listLibrarySkills();
    expect(skills.length).toBeGreaterThan(0);
    for (const skill of skills) {
      const file = join(libraryDir(), skill.name, "SKILL.md");
      const fm = splitFrontMatter(readFileSync(file, "utf8"))!;
      const plain = plainFrontMatter(fm.yaml);
      expect(plain, skill.name).toBeDefined();
      expect(plain).toEqual(yamlFields(fm.yaml));
      const dir = dirname(file);
      expect(parseSkillFile(readFileSync(file, "utf8"), file)).toEqual(parseWithYaml(fm, file, basename(dir), dir));
    }
  });

  it("answers the parser's own fields for the shapes it reads, and declines the rest", () => {
    const read = [
      "description: a plain line, with commas [and] {braces} and C# and a:b",
      'updated: "2026-11-30"\nversion: 12\npreinstall: false',
      "description: trailing spaces   \n\nname: x_y",
      "description: it's \"quoted\" inside",
    ];
    for (const text of read) {
      expect(plainFrontMatter(text), text).toBeDefined();
      expect(plainFrontMatter(text), text).toEqual(yamlFields(text));
    }
    const declined = [
      "description: a: b", // a nested mapping
      "description: text # a comment",
      "updated: 2026-11-30", // a date-like plain value
      "version: 1.5",
      "version: 0x10",
      "preinstall: True",
      "preinstall: yes\npreinstall: no", // a duplicate key
      "description: null",
      "description: ~",
      "description:",
      "description: |\n  block",
      "description: >-\n  folded",
      "description: 'single'",
      'description: "with \\n escape"',
      "description: first\n  continued",
      "# a comment\ndescription: x",
      "description: &anchor x",
      "description: !tag x",
      "description: - item",
      "description: ends with colon:",
      "description:\tx",
      "  description: indented",
    ];
    for (const text of declined) expect(plainFrontMatter(text), text).toBeUndefined();
  });

  it("never disagrees with the YAML parser on random front matter", () => {
    const pieces = ["a", "Z", " ", ":", ": ", "#", " #", '"', "'", "\\", "-", "1", "0", ".", "true", "null", "~", "[", "{", ",", "&", "!", "|", ">", "%", "@", "`", "é", "中", "\t", "\n", "  "];
    const value = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((parts) => parts.join(""));
    const key = fc.constantFrom("description", "name", "version", "preinstall", "updated", "short_description");
    const text = fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 5 }).map((lines) => lines.map(([k, v]) => `${k}: ${v}`).join("\n"));
    fc.assert(
      fc.property(text, (yaml) => {
        const plain = plainFrontMatter(yaml);
        if (plain === undefined) return;
        expect(plain).toEqual(yamlFields(yaml));
      }),
      { numRuns: 3000 },
    );
  });
});
