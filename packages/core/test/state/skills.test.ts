// Installing skills into an agent: a whole-directory copy that replaces the old one, and
// validation before anything is touched.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installSkill, listInstalledSkills, preinstalledOf } from "../../src/state/skills.js";
import { configErrorOf, tempAgent, tempDir } from "./helpers.js";

async function skillSource(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(await tempDir("penguin-src-"), name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, ".."), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

describe("installSkill", () => {
  it("copies the whole directory, and a reinstall replaces it wholesale", async () => {
    const paths = await tempAgent("helper");
    const v1 = await skillSource("report", {
      "SKILL.md": "---\ndescription: Write reports.\n---\nv1\n",
      "templates/a.md": "A",
      "old.txt": "gone later",
    });
    await installSkill(paths, v1);
    const target = join(paths.skillsDir, "report");
    expect(await readFile(join(target, "templates", "a.md"), "utf8")).toBe("A");

    const v2 = await skillSource("report", { "SKILL.md": "---\ndescription: Write better reports.\nversion: 2\n---\nv2\n", "new.txt": "N" });
    await installSkill(paths, v2);
    expect((await readdir(target)).sort()).toEqual(["SKILL.md", "new.txt"]);
    expect(await readdir(paths.skillsDir)).toEqual(["report"]);
    const [meta] = await listInstalledSkills(paths);
    expect(meta).toMatchObject({ name: "report", description: "Write better reports.", version: 2, dir: target });
  });

  it("refuses an invalid skill with a ConfigError and leaves the installed one intact", async () => {
    const paths = await tempAgent("helper");
    await installSkill(paths, await skillSource("report", { "SKILL.md": "---\ndescription: ok\n---\n" }));
    const broken = await skillSource("report", { "SKILL.md": "no front matter\n" });
    const err = await configErrorOf(() => installSkill(paths, broken));
    expect(err.message).toContain(join(broken, "SKILL.md"));
    expect(await readFile(join(paths.skillsDir, "report", "SKILL.md"), "utf8")).toBe("---\ndescription: ok\n---\n");
  });
});

describe("preinstalledOf", () => {
  it("leaves out skills marked preinstall: false", () => {
    const skill = (name: string, preinstall: boolean) => ({ name, description: "d", preinstall, version: 1, dir: `/s/${name}` });
    expect(preinstalledOf([skill("a", true), skill("manual", false), skill("b", true)]).map((s) => s.name)).toEqual(["a", "b"]);
  });
});
