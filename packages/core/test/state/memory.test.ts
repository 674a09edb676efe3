// Memory scopes: workspace scope naming, the .workspace marker, temporary workspaces getting
// the user scope only, and the index caps (200 lines, then 25,000 characters) with a note.
import { createHash } from "node:crypto";
import { mkdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { capMemoryIndex, MEMORY_INDEX_MAX_CHARS } from "../../src/state/memory-index.js";
import { loadMemoryIndex, workspaceScopeName } from "../../src/state/memory.js";
import { tempAgent, tempDir } from "./helpers.js";

const sha8 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);

describe("workspaceScopeName", () => {
  it("is the safe basename and the first 8 hex of sha256(realpath)", () => {
    expect(workspaceScopeName("/home/u/my-repo")).toBe(`my-repo-${sha8("/home/u/my-repo")}`);
    expect(workspaceScopeName("/home/u/My Project (v2)")).toBe(`My_Project_v2-${sha8("/home/u/My Project (v2)")}`);
    expect(workspaceScopeName("/")).toBe(`workspace-${sha8("/")}`);
    expect(workspaceScopeName("/a/same")).not.toBe(workspaceScopeName("/b/same"));
  });
});

describe("loadMemoryIndex", () => {
  it("reads the user index and the workspace scope keyed by the real path", async () => {
    const paths = await tempAgent();
    const real = await realpath(await tempDir("penguin-ws-"));
    const link = join(await tempDir(), "link");
    await symlink(real, link);
    await mkdir(join(paths.memoryDir, "user"), { recursive: true });
    await writeFile(join(paths.memoryDir, "user", "MEMORY.md"), "- [Prefs](prefs.md) — how the user likes answers\n");

    const index = await loadMemoryIndex(paths, link, { temporaryWorkspace: false });
    const scopeDir = join(paths.memoryDir, workspaceScopeName(real));
    expect(index).toEqual({ user: "- [Prefs](prefs.md) — how the user likes answers", workspace: "", workspaceScopeDir: scopeDir });
    expect(await readFile(join(scopeDir, ".workspace"), "utf8")).toBe(`${real}\n`);

    await writeFile(join(scopeDir, "MEMORY.md"), "- [Build](build.md) — use make\n");
    expect((await loadMemoryIndex(paths, real, { temporaryWorkspace: false })).workspace).toBe("- [Build](build.md) — use make");
  });

  it("gives a temporary workspace the user scope only and creates nothing for it", async () => {
    const paths = await tempAgent();
    const ws = await tempDir("penguin-ws-");
    const index = await loadMemoryIndex(paths, ws, { temporaryWorkspace: true });
    expect(index).toEqual({ user: "" });
    await expect(readFile(join(paths.memoryDir, workspaceScopeName(await realpath(ws)), ".workspace"))).rejects.toThrow();
  });

  it("caps an index read from disk", async () => {
    const paths = await tempAgent();
    await mkdir(join(paths.memoryDir, "user"), { recursive: true });
    const lines = Array.from({ length: 250 }, (_, i) => `- [T${i}](t${i}.md) — hook ${i}`);
    await writeFile(join(paths.memoryDir, "user", "MEMORY.md"), lines.join("\n"));
    const { user } = await loadMemoryIndex(paths, ".", { temporaryWorkspace: true });
    expect(user).toContain("- [T199](t199.md)");
    expect(user).not.toContain("- [T200](t200.md)");
    expect(user).toMatch(/MEMORY\.md was cut: showing the first 200 of 250 lines/);
  });
});

describe("capMemoryIndex", () => {
  it("leaves a small index alone", () => {
    expect(capMemoryIndex("- [A](a.md) — a\n\n")).toEqual({ text: "- [A](a.md) — a", cut: false });
  });

  it("cuts to 200 lines first, then to 25,000 characters at a line end", () => {
    const long = Array.from({ length: 150 }, (_, i) => `${String(i).padStart(3, "0")} ${"x".repeat(300)}`).join("\n");
    const { text, cut } = capMemoryIndex(long);
    expect(cut).toBe(true);
    const [kept, note] = [text.slice(0, text.lastIndexOf("\n[")), text.slice(text.lastIndexOf("\n[") + 1)];
    expect(kept.length).toBeLessThanOrEqual(MEMORY_INDEX_MAX_CHARS);
    expect(kept.endsWith("x")).toBe(true);
    expect(long.startsWith(kept)).toBe(true);
    expect(note).toMatch(/characters/);

    const both = capMemoryIndex(Array.from({ length: 300 }, () => "y".repeat(200)).join("\n"));
    expect(both.text).toMatch(/first 200 of 300 lines, then the first \d+ of \d+ characters/);
  });
});
