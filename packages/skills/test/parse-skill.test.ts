// SKILL.md parsing and validation: defaults, the directory-name rule, and errors that name the
// file, the line and the field.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseSkillFile, readSkillDir, scanSkillsDir, SkillFileError, splitFrontMatter } from "../src/index.js";

const FILE = "/lib/skills/my-skill/SKILL.md";

function errorOf(fn: () => unknown): SkillFileError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SkillFileError);
    if (e instanceof SkillFileError) return e;
  }
  throw new Error("expected a SkillFileError, but nothing was thrown");
}

describe("splitFrontMatter", () => {
  it("splits YAML from the body and tolerates a BOM and CRLF", () => {
    expect(splitFrontMatter("\uFEFF---\r\na: 1\r\n---\r\nbody\r\n")).toEqual({ yaml: "a: 1", yamlLine: 2, body: "body\n" });
  });

  it("returns undefined without an opening or closing fence", () => {
    expect(splitFrontMatter("# title\n---\na: 1\n---\n")).toBeUndefined();
    expect(splitFrontMatter("---\na: 1\n")).toBeUndefined();
  });
});

describe("parseSkillFile", () => {
  it("reads the fields and fills the defaults", () => {
    const meta = parseSkillFile("---\nname: other\ndescription: Does a thing.\n---\n# Body\n", FILE);
    expect(meta).toEqual({ name: "my-skill", description: "Does a thing.", preinstall: true, version: 1, dir: "/lib/skills/my-skill" });
  });

  it("keeps every optional field", () => {
    const text = [
      "---",
      "description: |",
      "  Two lines",
      "  of description.",
      "short_description: Short",
      "short_description_zh: 短",
      "preinstall: false",
      "version: 3",
      'updated: "2026-01-02"',
      "future: ignored",
      "---",
    ].join("\n");
    expect(parseSkillFile(text, FILE)).toEqual({
      name: "my-skill",
      description: "Two lines of description.",
      shortDescription: "Short",
      shortDescriptionZh: "短",
      preinstall: false,
      version: 3,
      updated: "2026-01-02",
      dir: "/lib/skills/my-skill",
    });
  });

  it("treats a key with no value as absent", () => {
    expect(parseSkillFile("---\ndescription: d\nversion:\npreinstall:\n---\n", FILE)).toMatchObject({ version: 1, preinstall: true });
  });

  it("requires a description, naming the field", () => {
    const err = errorOf(() => parseSkillFile("---\nname: x\n---\n", FILE));
    expect(err.detail).toMatchObject({ file: FILE, field: "description" });
    expect(err.message).toContain(FILE);
    const blank = errorOf(() => parseSkillFile('---\nname: x\ndescription: "  "\n---\n', FILE));
    expect(blank.detail).toMatchObject({ field: "description", line: 3 });
  });

  it("reports wrong types with the file line of the key", () => {
    const version = errorOf(() => parseSkillFile("---\ndescription: d\n\nversion: 1.5\n---\n", FILE));
    expect(version.detail).toMatchObject({ field: "version", line: 4 });
    expect(version.message).toContain(`${FILE}, line 4, field "version"`);
    const preinstall = errorOf(() => parseSkillFile("---\ndescription: d\npreinstall: maybe\n---\n", FILE));
    expect(preinstall.detail).toMatchObject({ field: "preinstall", line: 3 });
    const name = errorOf(() => parseSkillFile("---\nname: [a]\ndescription: d\n---\n", FILE));
    expect(name.detail).toMatchObject({ field: "name", line: 2 });
  });

  it("reports broken YAML at its line in the file", () => {
    const err = errorOf(() => parseSkillFile("---\ndescription: d\nversion: [1,\n---\nbody\n", FILE));
    expect(err.detail.file).toBe(FILE);
    expect(err.detail.line).toBeGreaterThanOrEqual(3);
    expect(err.message).toMatch(/not valid YAML/);
  });

  it("reports a missing front matter and a non-mapping one", () => {
    expect(errorOf(() => parseSkillFile("# Just markdown\n", FILE)).detail).toMatchObject({ line: 1, problem: "no front matter" });
    expect(errorOf(() => parseSkillFile("---\n- a\n---\n", FILE)).message).toMatch(/mapping/);
  });

  it("rejects a directory name outside ^[A-Za-z0-9_-]+$", () => {
    const err = errorOf(() => parseSkillFile("---\ndescription: d\n---\n", "/lib/skills/bad name/SKILL.md"));
    expect(err.message).toMatch(/directory name "bad name"/);
  });
});

describe("scanning skill folders", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function folder(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "penguin-skills-"));
    dirs.push(dir);
    return dir;
  }

  it("lists skill folders sorted, ignoring hidden entries and plain files", async () => {
    const dir = await folder();
    for (const name of ["zeta", "alpha", ".install-alpha-1234"]) {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, "SKILL.md"), `---\ndescription: ${name} skill\n---\n`);
    }
    await writeFile(join(dir, "README.md"), "not a skill");
    expect(scanSkillsDir(dir).map((s) => s.name)).toEqual(["alpha", "zeta"]);
  });

  it("treats a missing folder as empty and a folder without SKILL.md as an error", async () => {
    const dir = await folder();
    expect(scanSkillsDir(join(dir, "nope"))).toEqual([]);
    await mkdir(join(dir, "empty"));
    const err = errorOf(() => readSkillDir(join(dir, "empty")));
    expect(err.message).toContain(join(dir, "empty", "SKILL.md"));
    expect(() => scanSkillsDir(dir)).toThrow(SkillFileError);
  });
});
