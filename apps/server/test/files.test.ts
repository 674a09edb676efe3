// The workspace file routes are confined to the session's workspace: `..`, absolute paths
// and symlinks that lead out are refused (400 invalid_path) and read nothing; writes cannot
// escape either. Previews carry nosniff and a sandbox CSP.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers/harness.js";
import type { ApiClient } from "./helpers/client.js";

const SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE";
let h: Harness;
let admin: ApiClient;
let sid: string;
let outside: string;

beforeEach(async () => {
  h = await startHarness();
  admin = await h.admin();
  outside = mkdtempSync(join(tmpdir(), "penguin-outside-"));
  writeFileSync(join(outside, "secret.txt"), SECRET);
  writeFileSync(join(h.workspace, "hello.txt"), "hello");
  mkdirSync(join(h.workspace, "sub"));
  writeFileSync(join(h.workspace, "sub", "inner.md"), "# inner");
  symlinkSync(join(outside, "secret.txt"), join(h.workspace, "link-to-secret"));
  symlinkSync(outside, join(h.workspace, "link-to-dir"));
  symlinkSync("hello.txt", join(h.workspace, "link-inside"));
  const created = await admin.post("/api/projects/default_project/agents/default_agent/sessions", { workspace: h.workspace });
  sid = created.body.id;
});

afterEach(async () => {
  await h.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

describe("workspace confinement", () => {
  const escapes = ["../secret.txt", "sub/../../secret.txt", "link-to-secret", "link-to-dir/secret.txt", "/etc/passwd", "C:\\Windows\\win.ini", "sub\\..\\..\\x", "a\0b"];

  it("refuses every escape on read, listing, preview and download, and returns none of the file", async () => {
    for (const path of escapes) {
      for (const suffix of ["", "&preview=1", "&download=1"]) {
        const res = await admin.raw("GET", `/api/sessions/${sid}/files/content?path=${encodeURIComponent(path)}${suffix}`);
        const text = await res.text();
        expect({ path, suffix, status: res.status }).toEqual({ path, suffix, status: 400 });
        expect(JSON.parse(text).error.code).toBe("invalid_path");
        expect(text).not.toContain(SECRET);
      }
      const listing = await admin.get(`/api/sessions/${sid}/files?path=${encodeURIComponent(path)}`);
      expect([400, 404]).toContain(listing.status);
      expect(JSON.stringify(listing.body)).not.toContain("secret.txt");
    }
    const stat = await admin.post(`/api/sessions/${sid}/files/stat`, { paths: ["hello.txt", "link-to-secret", "../secret.txt"] });
    expect(stat.body.stats.map((s: any) => s.exists)).toEqual([true, false, false]);
    // Nothing about the secret file comes back: no size, no time, no type for the escapes (a
    // search of the whole body for its length would also match digits of hello.txt's mtime).
    for (const escaped of stat.body.stats.slice(1)) expect(Object.keys(escaped).sort()).toEqual(["error", "exists", "path"]);
  });

  it("serves what is inside, symlinks within the workspace included", async () => {
    expect((await admin.get(`/api/sessions/${sid}/files/content?path=hello.txt`)).body).toMatchObject({ content: "hello", encoding: "utf8", size: 5 });
    expect((await admin.get(`/api/sessions/${sid}/files/content?path=link-inside`)).body.content).toBe("hello");
    expect((await admin.get(`/api/sessions/${sid}/files/content?path=./sub/inner.md`)).body.content).toBe("# inner");
    const listing = await admin.get(`/api/sessions/${sid}/files`);
    expect(listing.body.entries.map((e: any) => `${e.type}:${e.name}`)).toEqual(expect.arrayContaining(["dir:sub", "file:hello.txt", "symlink:link-to-secret"]));
  });

  it("refuses writes that would land outside, and leaves the outside file untouched", async () => {
    const data = Buffer.from("overwritten").toString("base64");
    for (const path of ["../secret.txt", "link-to-secret", "link-to-dir/secret.txt", "link-to-dir/new.txt", "/tmp/x.txt"]) {
      const res = await admin.put(`/api/sessions/${sid}/files/content`, { path, dataBase64: data });
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe(SECRET);
    const ok = await admin.put(`/api/sessions/${sid}/files/content`, { path: "new/dir/file.txt", dataBase64: data });
    expect(ok.status).toBe(200);
    expect(readFileSync(join(h.workspace, "new", "dir", "file.txt"), "utf8")).toBe("overwritten");
  });

  it("previews with nosniff and a sandbox CSP, downloads as attachments", async () => {
    writeFileSync(join(h.workspace, "page.html"), "<script>alert(1)</script>");
    const preview = await admin.raw("GET", `/api/sessions/${sid}/files/content?path=page.html&preview=1`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("x-content-type-options")).toBe("nosniff");
    expect(preview.headers.get("content-security-policy")).toMatch(/^sandbox;/);
    expect(preview.headers.get("content-security-policy")).not.toContain("allow-scripts");
    expect(await preview.text()).toBe("<script>alert(1)</script>");
    const download = await admin.raw("GET", `/api/sessions/${sid}/files/content?path=page.html&download=1`);
    expect(download.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''page.html");
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
