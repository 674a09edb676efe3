// The memory browser over real files: scopes with their workspace, files read and deleted by
// their path in the memory folder (never outside it), and export/import in the three modes,
// where `replace` answers 409 until confirmed and members may read but not change.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const A = "/api/projects/default_project/agents/default_agent";

function seed(root: string): string {
  const dir = agentPaths(root, "default_project", "default_agent").memoryDir;
  mkdirSync(join(dir, "user"), { recursive: true });
  mkdirSync(join(dir, "repo-0a1b2c3d"), { recursive: true });
  writeFileSync(join(dir, "user", "MEMORY.md"), "- [Prefs](prefs.md) — how I like things\n");
  writeFileSync(join(dir, "user", "prefs.md"), "---\nname: prefs\n---\nTabs, not spaces.\n");
  writeFileSync(join(dir, "repo-0a1b2c3d", ".workspace"), "/home/me/repo\n");
  writeFileSync(join(dir, "repo-0a1b2c3d", "MEMORY.md"), "- build with make\n");
  writeFileSync(join(root, "outside.txt"), "not memory");
  symlinkSync(join(root, "outside.txt"), join(dir, "user", "escape.md"));
  return dir;
}

describe("memory browser", () => {
  it("lists scopes and files, reads and deletes by path, and stays inside the memory folder", async () => {
    h = await startHarness();
    const c = await h.admin();
    const dir = seed(h.root);
    const scopes = (await c.get(`${A}/memory`)).body.scopes;
    expect(scopes).toEqual(
      expect.arrayContaining([
        { key: "user", workspace: null, files: 2 },
        { key: "repo-0a1b2c3d", workspace: "/home/me/repo", files: 1 },
      ]),
    );
    expect((await c.get(`${A}/memory/scopes/user/files`)).body.files.map((f: any) => f.path).sort()).toEqual(["MEMORY.md", "prefs.md"]);
    const read = await c.get(`${A}/memory/files/user/prefs.md`);
    expect(read.body).toMatchObject({ path: "user/prefs.md", encoding: "utf8", content: "---\nname: prefs\n---\nTabs, not spaces.\n" });
    expect((await c.get(`${A}/memory/files/user/escape.md`)).status).toBe(400);
    expect((await c.get(`${A}/memory/files/..%2F..%2F..%2Fweb.db`)).status).toBe(400);
    expect((await c.get(`${A}/memory/files/user/none.md`)).status).toBe(404);
    expect((await c.del(`${A}/memory/files/.%2F`)).status).toBe(400);
    expect(existsSync(join(dir, "user", "MEMORY.md"))).toBe(true);

    expect((await c.del(`${A}/memory/files/user/prefs.md`)).status).toBe(204);
    expect(existsSync(join(dir, "user", "prefs.md"))).toBe(false);
    expect(readFileSync(join(h.root, "outside.txt"), "utf8")).toBe("not memory");
  });

  it("exports everything and imports with skip, overwrite and confirmed replace", async () => {
    h = await startHarness();
    const c = await h.admin();
    const dir = seed(h.root);
    const exported = await c.get(`${A}/memory/export`);
    expect(exported.headers.get("content-disposition")).toContain("default_agent-memory.json");
    const payload = exported.body;
    expect(payload).toMatchObject({ format: "penguin-memory", version: 1 });
    expect(payload.files.map((f: any) => f.path).sort()).toEqual(["repo-0a1b2c3d/.workspace", "repo-0a1b2c3d/MEMORY.md", "user/MEMORY.md", "user/prefs.md"]);

    writeFileSync(join(dir, "user", "prefs.md"), "changed locally\n");
    writeFileSync(join(dir, "user", "extra.md"), "only here\n");
    const skip = await c.post(`${A}/memory/import`, { payload, mode: "skip" });
    expect(skip.body.skipped.sort()).toEqual(["repo-0a1b2c3d/.workspace", "repo-0a1b2c3d/MEMORY.md", "user/MEMORY.md", "user/prefs.md"]);
    expect(readFileSync(join(dir, "user", "prefs.md"), "utf8")).toBe("changed locally\n");

    const overwrite = await c.post(`${A}/memory/import`, { payload, mode: "overwrite" });
    expect(overwrite.body.written).toHaveLength(4);
    expect(readFileSync(join(dir, "user", "prefs.md"), "utf8")).toContain("Tabs, not spaces.");
    expect(existsSync(join(dir, "user", "extra.md"))).toBe(true);

    const unconfirmed = await c.post(`${A}/memory/import`, { payload, mode: "replace" });
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body.error.code).toBe("confirm_required");
    expect(existsSync(join(dir, "user", "extra.md"))).toBe(true);
    const replaced = await c.post(`${A}/memory/import`, { payload, mode: "replace", confirm: true });
    expect(replaced.status).toBe(200);
    expect(existsSync(join(dir, "user", "extra.md"))).toBe(false);
    expect(readFileSync(join(dir, "repo-0a1b2c3d", ".workspace"), "utf8")).toBe("/home/me/repo\n");

    const evil = { ...payload, files: [{ path: "../../escape.txt", encoding: "utf8", content: "x" }] };
    const refused = await c.post(`${A}/memory/import`, { payload: evil, mode: "overwrite" });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe("payload.files.0.path");
    expect(existsSync(join(dir, "..", "..", "escape.txt"))).toBe(false);
  });

  it("lets a member read memory but not change it", async () => {
    h = await startHarness();
    const admin = await h.admin();
    seed(h.root);
    await admin.post("/api/admin/users", { userId: "bob", password: "bob-password" });
    await admin.post("/api/projects/default_project/members", { userId: "bob" });
    const bob = h.client();
    await bob.login("bob", "bob-password");
    expect((await bob.get(`${A}/memory/files/user/MEMORY.md`)).status).toBe(200);
    expect((await bob.del(`${A}/memory/files/user/MEMORY.md`)).status).toBe(404);
    expect((await bob.post(`${A}/memory/import`, { payload: { format: "penguin-memory", version: 1, files: [] }, mode: "skip" })).status).toBe(404);
  });
});
