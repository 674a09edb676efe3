// Skills through the API: the grouped library, installing from it, zip archives both ways
// (a round trip keeps every file), and the refusals that keep an upload inside its staging
// folder: path traversal, absolute paths, several folders, a missing SKILL.md, not a zip,
// and a name clash without `overwrite`.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { strToU8, unzipSync, zipSync } from "fflate";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const A = "/api/projects/default_project/agents/default_agent";
const SKILL_MD = "---\nname: tidy\ndescription: Use to tidy a folder.\nversion: 2\n---\n\n# Tidy\nSort files.\n";
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("the skill library", () => {
  it("lists the library in groups with metadata, and installs from it", async () => {
    h = await startHarness();
    const c = await h.admin();
    const lib = await c.get("/api/skills");
    expect(lib.status).toBe(200);
    const all = lib.body.groups.flatMap((g: any) => g.skills.map((s: any) => ({ group: g.name, ...s })));
    expect(all.map((s: any) => s.name)).toEqual(expect.arrayContaining(["penguin-cli", "software-engineering", "agent-optimization"]));
    const cli = all.find((s: any) => s.name === "penguin-cli");
    expect(cli).toMatchObject({ group: "PenguinHarness", preinstall: true, version: expect.any(Number) });
    expect(cli.description.length).toBeGreaterThan(10);
    expect(JSON.stringify(lib.body)).not.toContain("/skills/");

    const paths = agentPaths(h.root, "default_project", "default_agent");
    rmSync(join(paths.skillsDir, "penguin-cli"), { recursive: true, force: true });
    expect((await c.get(`${A}/skills`)).body.skills.map((s: any) => s.name)).not.toContain("penguin-cli");
    const installed = await c.post(`${A}/skills`, { names: ["penguin-cli"] });
    expect(installed.status).toBe(200);
    expect(installed.body.installed).toEqual([expect.objectContaining({ name: "penguin-cli" })]);
    expect(existsSync(join(paths.skillsDir, "penguin-cli", "SKILL.md"))).toBe(true);
    expect((await c.get(`${A}/skills`)).body.skills.map((s: any) => s.name)).toContain("penguin-cli");

    const unknown = await c.post(`${A}/skills`, { names: ["penguin-cli", "no-such-skill"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe("names.1");
  });
});

describe("skill archives", () => {
  it("installs a zipped skill folder, refuses a clash without overwrite, and downloads it back intact", async () => {
    h = await startHarness();
    const c = await h.admin();
    const zip = zipSync({ "tidy/SKILL.md": strToU8(SKILL_MD), "tidy/scripts/run.sh": strToU8("#!/bin/sh\necho tidy\n"), "__MACOSX/tidy/._SKILL.md": strToU8("junk") });
    const first = await c.post(`${A}/skills/archive`, { dataBase64: b64(zip) });
    expect(first.status).toBe(201);
    expect(first.body.installed).toMatchObject({ name: "tidy", description: "Use to tidy a folder.", version: 2 });
    const dir = join(agentPaths(h.root, "default_project", "default_agent").skillsDir, "tidy");
    expect(readFileSync(join(dir, "scripts", "run.sh"), "utf8")).toBe("#!/bin/sh\necho tidy\n");
    expect(existsSync(join(h.root, "..", "__MACOSX"))).toBe(false);

    const clash = await c.post(`${A}/skills/archive`, { dataBase64: b64(zip) });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("already_exists");
    const v3 = zipSync({ "tidy/SKILL.md": strToU8(SKILL_MD.replace("version: 2", "version: 3")) });
    expect((await c.post(`${A}/skills/archive`, { dataBase64: b64(v3), overwrite: true })).body.installed.version).toBe(3);
    expect(existsSync(join(dir, "scripts", "run.sh"))).toBe(false);

    const download = await c.raw("GET", `${A}/skills/tidy/archive`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/zip");
    expect(download.headers.get("content-disposition")).toContain('filename="tidy.zip"');
    const files = unzipSync(new Uint8Array(await download.arrayBuffer()));
    expect(Object.keys(files)).toEqual(["tidy/SKILL.md"]);
    expect(Buffer.from(files["tidy/SKILL.md"] ?? new Uint8Array()).toString("utf8")).toContain("version: 3");
    expect((await c.raw("GET", `${A}/skills/nothing/archive`)).status).toBe(404);

    expect((await c.del(`${A}/skills/tidy`)).status).toBe(204);
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses traversal, absolute paths, several folders, a missing SKILL.md and non-zips, writing nothing", async () => {
    h = await startHarness();
    const c = await h.admin();
    const skills = agentPaths(h.root, "default_project", "default_agent").skillsDir;
    const cases: [string, Uint8Array][] = [
      ["traversal", zipSync({ "tidy/SKILL.md": strToU8(SKILL_MD), "tidy/../../evil.txt": strToU8("x") })],
      ["absolute", zipSync({ "tidy/SKILL.md": strToU8(SKILL_MD), "/tmp/evil.txt": strToU8("x") })],
      ["backslash", zipSync({ "tidy/SKILL.md": strToU8(SKILL_MD), "tidy\\..\\evil.txt": strToU8("x") })],
      ["two folders", zipSync({ "tidy/SKILL.md": strToU8(SKILL_MD), "other/SKILL.md": strToU8(SKILL_MD) })],
      ["loose file", zipSync({ "SKILL.md": strToU8(SKILL_MD) })],
      ["bad name", zipSync({ "ti dy/SKILL.md": strToU8(SKILL_MD) })],
    ];
    for (const [what, zip] of cases) {
      const res = await c.post(`${A}/skills/archive`, { dataBase64: b64(zip) });
      expect(res.status, what).toBe(400);
      expect(res.body.error.code, what).toBe("invalid_request");
    }
    const missing = await c.post(`${A}/skills/archive`, { dataBase64: b64(zipSync({ "tidy/README.md": strToU8("no skill here") })) });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("invalid_config");
    expect(missing.body.error.message).toMatch(/^tidy\/SKILL\.md: /);
    expect(missing.body.error.message).not.toContain("penguin-skill-");
    const notZip = await c.post(`${A}/skills/archive`, { dataBase64: Buffer.from("plain text, not a zip").toString("base64") });
    expect(notZip.body.error.message).toContain("not a readable zip");
    expect(existsSync(join(skills, "tidy"))).toBe(false);
    expect(existsSync(join(skills, "..", "..", "evil.txt"))).toBe(false);
  });
});
