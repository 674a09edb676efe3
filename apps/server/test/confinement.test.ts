// Workspaces are confined to the server's workspace roots, and secret files are never
// served or written through a file route. A signed-in user who may create sessions tries
// every way out: the data root itself, `/`, a parent of the data root, `..` segments, a
// folder inside the data root, a folder outside the roots, and a symlink inside a root
// pointing out. Each is a 400 naming the workspace and no session appears. Then
// `.project_config.toml`, `.vault.toml` and a database, by name and through an innocent
// looking symlink, through every file route: refused, contents never in an answer, nothing
// written. The directory browser stays inside the roots as well.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession } from "./helpers/session.js";

let h: Harness | undefined;
const extra: string[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const d of extra.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SESSIONS = "/api/projects/default_project/agents/default_agent/sessions";
const SECRET = "sk-live-never-leaves-0123456789";

function sessionCount(harness: Harness): number {
  const facts = harness.server.context.stores.facts;
  return facts.first(facts.query.selectFrom("sessions").select((eb) => eb.fn.countAll<number>().as("n")))?.n ?? 0;
}

describe("workspace confinement at session creation", () => {
  it("refuses the data root, /, a parent of it, .. segments, the data root's insides, folders outside the roots and symlinks leading out", async () => {
    const roomRoot = mkdtempSync(join(tmpdir(), "penguin-roots-"));
    extra.push(roomRoot);
    const allowed = join(roomRoot, "team");
    mkdirSync(allowed);
    h = await startHarness({ app: { workspaceRoots: [allowed] } });
    const c = await h.admin();
    symlinkSync(h.root, join(allowed, "to-data-root"));
    symlinkSync("/etc", join(allowed, "to-etc"));
    const outside = mkdtempSync(join(tmpdir(), "penguin-outside-"));
    extra.push(outside);
    const before = sessionCount(h);
    const attempts = [
      h.root,
      "/",
      dirname(h.root),
      `${allowed}/../${basename(outside)}`,
      `${allowed}/../../${basename(h.root)}`,
      join(h.root, "default_project"),
      agentPaths(h.root, "default_project", "default_agent").workspacesDir,
      outside,
      join(allowed, "to-data-root"),
      join(allowed, "to-etc"),
      "relative/path",
    ];
    for (const workspace of attempts) {
      const answer = await c.post(SESSIONS, { workspace });
      expect(answer.status, workspace).toBe(400);
      expect(answer.body.error.field, workspace).toBe("workspace");
    }
    expect(sessionCount(h)).toBe(before);

    const ok = await c.post(SESSIONS, { workspace: allowed });
    expect(ok.status).toBe(201);
    const temp = await c.post(SESSIONS, {});
    expect(temp.status).toBe(201);
    expect(temp.body.workspace.startsWith(agentPaths(h.root, "default_project", "default_agent").workspacesDir)).toBe(true);

    // A project's default workspace is held to the same rules when it is set.
    for (const workspace of [h.root, "/", outside]) {
      const refusedDefault = await c.put("/api/projects/default_project/chat-defaults", { workspace });
      expect(refusedDefault.status, workspace).toBe(400);
      expect(refusedDefault.body.error.field).toBe("workspace");
    }
    expect((await c.put("/api/projects/default_project/chat-defaults", { workspace: allowed })).status).toBe(200);
    expect((await c.post(SESSIONS, {})).body.workspace).toBe(allowed);
  });

  it("applies the admin's workspaceRoots setting at once, also to sessions that already exist", async () => {
    h = await startHarness();
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    writeFileSync(join(h.workspace, "notes.txt"), "hello");
    expect((await c.get(`/api/sessions/${sid}/files/content?path=notes.txt`)).status).toBe(200);
    const elsewhere = mkdtempSync(join(tmpdir(), "penguin-elsewhere-"));
    extra.push(elsewhere);
    const settings = (await c.get("/api/admin/settings")).body;
    expect(settings.workspaceRoots).toEqual([]);
    expect((await c.put("/api/admin/settings", { ...settings, workspaceRoots: ["not/absolute"] })).body.error.field).toBe("workspaceRoots.0");
    expect((await c.put("/api/admin/settings", { ...settings, workspaceRoots: [elsewhere] })).status).toBe(200);
    const refused = await c.get(`/api/sessions/${sid}/files/content?path=notes.txt`);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).not.toContain("hello");
    expect((await c.post(SESSIONS, { workspace: h.workspace })).status).toBe(400);
    expect((await c.post(SESSIONS, { workspace: elsewhere })).status).toBe(201);
  });
});

describe("secret files through every file route", () => {
  it("refuses .project_config.toml, .vault.toml and databases by name and through symlinks, reading and writing nothing", async () => {
    h = await startHarness();
    const c = await h.admin();
    const ws = h.workspace;
    const secrets = [".project_config.toml", ".vault.toml", "web.db", "web.db-wal", "cache.sqlite"];
    for (const name of secrets) writeFileSync(join(ws, name), `api_key = "${SECRET}"\n`);
    symlinkSync(join(ws, ".vault.toml"), join(ws, "innocent.txt"));
    mkdirSync(join(ws, "site"));
    symlinkSync(join(ws, ".project_config.toml"), join(ws, "site", "index.html"));
    const sid = await newSession(c, { workspace: ws });
    const names = [...secrets, "innocent.txt", "site/index.html"];

    const listing = await c.get(`/api/sessions/${sid}/files`);
    expect(listing.status).toBe(200);
    expect(listing.body.entries.map((e: any) => e.name)).not.toEqual(expect.arrayContaining([".vault.toml"]));
    for (const name of secrets) expect(listing.body.entries.some((e: any) => e.name === name), name).toBe(false);

    for (const name of names) {
      const q = encodeURIComponent(name);
      const answers = [
        await c.get(`/api/sessions/${sid}/files/content?path=${q}`),
        await c.get(`/api/sessions/${sid}/files/content?path=${q}&preview=1`),
        await c.get(`/api/sessions/${sid}/files/content?path=${q}&download=1`),
        await c.get(`/api/sessions/${sid}/files/preview-redirect?path=${q}&format=json`),
        await c.get(`/api/sessions/${sid}/files?path=${q}`),
        await c.get(`/api/sessions/${sid}/scratchpad/${q}`),
      ];
      for (const answer of answers) {
        expect(answer.status, name).toBeGreaterThanOrEqual(400);
        expect(JSON.stringify(answer.body), name).not.toContain(SECRET);
      }
      const stat = await c.post(`/api/sessions/${sid}/files/stat`, { paths: [name] });
      expect(stat.body.stats[0], name).toMatchObject({ exists: false });
      const write = await c.put(`/api/sessions/${sid}/files/content`, { path: name, dataBase64: Buffer.from("overwritten").toString("base64") });
      expect(write.status, name).toBe(400);
    }
    for (const name of secrets) expect(readFileSync(join(ws, name), "utf8")).toContain(SECRET);
    expect(existsSync(join(ws, "sub", ".vault.toml"))).toBe(false);
    expect((await c.put(`/api/sessions/${sid}/files/content`, { path: "sub/.vault.toml", dataBase64: "eA==" })).status).toBe(400);
    expect(existsSync(join(ws, "sub", ".vault.toml"))).toBe(false);

    // The preview origin, with a token for the folder holding the linked index.html.
    writeFileSync(join(ws, "site", "page.html"), "<p>fine</p>");
    const signed = await c.get(`/api/sessions/${sid}/files/preview-redirect?path=site/page.html&format=json`);
    expect(signed.status).toBe(200);
    const base = signed.body.url.replace(/page\.html$/, "");
    expect((await h.request(`${base}page.html`)).status).toBe(200);
    for (const path of ["", "index.html", "..%2F.vault.toml"]) {
      const page = await h.request(`${base}${path}`);
      expect(page.status, path).toBe(404);
      expect(await page.text()).not.toContain(SECRET);
    }
  });
});

describe("the directory browser", () => {
  it("starts at the first root, lists only inside the roots, and refuses the data root and /", async () => {
    const roomRoot = mkdtempSync(join(tmpdir(), "penguin-browse-"));
    extra.push(roomRoot);
    mkdirSync(join(roomRoot, "alpha", "inner"), { recursive: true });
    h = await startHarness({ app: { workspaceRoots: [roomRoot] } });
    const c = await h.admin();
    const top = await c.get("/api/projects/default_project/dirs");
    expect(top.body).toMatchObject({ path: roomRoot, parent: null, dirs: ["alpha"] });
    expect(top.body.roots).toEqual(expect.arrayContaining([roomRoot, agentPaths(h.root, "default_project", "default_agent").workspacesDir]));
    const inner = await c.get(`/api/projects/default_project/dirs?path=${encodeURIComponent(join(roomRoot, "alpha"))}`);
    expect(inner.body).toMatchObject({ path: join(roomRoot, "alpha"), parent: roomRoot, dirs: ["inner"] });
    for (const path of ["/", h.root, dirname(roomRoot), join(roomRoot, "..")]) {
      const refused = await c.get(`/api/projects/default_project/dirs?path=${encodeURIComponent(path)}`);
      expect(refused.status, path).toBe(400);
      expect(refused.body.error.field).toBe("path");
    }
  });
});
