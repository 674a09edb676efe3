// The checkpoint store on real files in temp folders: gitignore rules (nested files,
// negation, folder-only, anchored), deduplication across checkpoints (a second checkpoint of
// one changed file stores that file only), the stat cache (an unchanged file is not read
// again), a pack torn by a crash is never listed, and an over-limit file is recorded by hash
// and size only and never removed by a restore.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isIgnored, parseIgnoreLines } from "../src/checkpoints/ignore-rules.js";
import { PackStore } from "../src/checkpoints/pack-store.js";
import { WorkspaceCheckpoints } from "../src/checkpoints/workspace-checkpoints.js";

const made: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("ignore rules", () => {
  it("follows gitignore: names at any depth, anchored paths, folder-only, negation, nested files", () => {
    const root = { base: "", rules: parseIgnoreLines("# comment\n*.log\n!keep.log\n/build\ncache/\ndocs/**/*.tmp\n") };
    const nested = { base: "pkg", rules: parseIgnoreLines("local.txt\n") };
    const sets = [root, nested];
    expect(isIgnored(sets, "a/b/x.log", false)).toBe(true);
    expect(isIgnored(sets, "a/keep.log", false)).toBe(false);
    expect(isIgnored(sets, "build", true)).toBe(true);
    expect(isIgnored(sets, "src/build", true)).toBe(false);
    expect(isIgnored(sets, "cache", true)).toBe(true);
    expect(isIgnored(sets, "cache", false)).toBe(false);
    expect(isIgnored(sets, "docs/a/b/c.tmp", false)).toBe(true);
    expect(isIgnored(sets, "pkg/local.txt", false)).toBe(true);
    expect(isIgnored(sets, "local.txt", false)).toBe(false);
  });
});

describe("workspace checkpoints", () => {
  it("stores a changed file once, skips unchanged ones, honours .gitignore and restores in place", () => {
    const ws = temp("ckpt-ws-");
    const store = temp("ckpt-store-");
    writeFileSync(join(ws, ".gitignore"), "*.log\n");
    writeFileSync(join(ws, "big-text.txt"), "x".repeat(200_000));
    writeFileSync(join(ws, "run.log"), "ignored\n");
    mkdirSync(join(ws, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(ws, "node_modules", "dep", "index.js"), "ignored\n");
    mkdirSync(join(ws, "empty"));
    symlinkSync("big-text.txt", join(ws, "link"));
    const checkpoints = new WorkspaceCheckpoints(store, ws);
    const first = checkpoints.take()!;
    expect(first.changed).toEqual([".gitignore", "big-text.txt", "empty", "link"]);
    expect(checkpoints.take()).toBeUndefined();

    const originalMode = statSync(join(ws, "big-text.txt")).mode & 0o777;
    writeFileSync(join(ws, "small.txt"), "a small change\n");
    chmodSync(join(ws, "big-text.txt"), 0o755);
    const second = checkpoints.take()!;
    expect(second.changed).toEqual(["big-text.txt", "small.txt"]);
    // Only the new file and the tree: the big file's bytes are already stored (a mode change is no new blob).
    expect(second.storedBytes).toBeLessThan(1000);

    rmSync(join(ws, "empty"), { recursive: true });
    writeFileSync(join(ws, "small.txt"), "another\n");
    const report = checkpoints.restore(first.tree);
    expect(report.removed).toEqual(["small.txt"]);
    expect(readdirSync(ws).sort()).toEqual([".gitignore", "big-text.txt", "empty", "link", "node_modules", "run.log"]);
    expect(statSync(join(ws, "big-text.txt")).mode & 0o777).toBe(originalMode);
    expect(readFileSync(join(ws, "run.log"), "utf8")).toBe("ignored\n");
  });

  it("gives a state the same tree id whether its folders were built again or reused from the last checkpoint", () => {
    const ws = temp("ckpt-ws-");
    const checkpoints = new WorkspaceCheckpoints(temp("ckpt-store-"), ws);
    mkdirSync(join(ws, "a", "b", "c"), { recursive: true });
    writeFileSync(join(ws, "a", "b", "c", "deep.txt"), "1");
    writeFileSync(join(ws, "top.txt"), "1");
    checkpoints.take();
    const steps: (() => void)[] = [
      () => writeFileSync(join(ws, "a", "b", "c", "deep.txt"), "2"),
      () => mkdirSync(join(ws, "a", "empty")),
      () => rmSync(join(ws, "a", "b"), { recursive: true }),
      () => chmodSync(join(ws, "a"), 0o700),
    ];
    for (const step of steps) {
      step();
      const reused = checkpoints.take()!;
      const other = new WorkspaceCheckpoints(temp("ckpt-store-"), ws);
      const fresh = other.take()!;
      expect(reused.tree).toBe(fresh.tree);
      expect(checkpoints.treeOf(reused.tree)).toEqual(other.treeOf(fresh.tree));
    }
  });

  it("never writes through a folder that became an ignored link leading out of the workspace", () => {
    const ws = temp("ckpt-ws-");
    const outside = temp("ckpt-outside-");
    const checkpoints = new WorkspaceCheckpoints(temp("ckpt-store-"), ws);
    mkdirSync(join(ws, "d"));
    writeFileSync(join(ws, "d", "x.txt"), "mine\n");
    const withFolder = checkpoints.take()!;
    rmSync(join(ws, "d"), { recursive: true });
    symlinkSync(outside, join(ws, "d"));
    writeFileSync(join(ws, ".gitignore"), "d\n");
    checkpoints.take();
    const report = checkpoints.restore(withFolder.tree);
    expect(readdirSync(outside)).toEqual([]);
    expect(report.notRestored.map((n) => n.path).sort()).toEqual(["d", "d/x.txt"]);
    expect(report.notRestored[0]!.reason).toContain("link");
  });

  it("records a file above the size limit by hash and size only, and never removes it", () => {
    const ws = temp("ckpt-ws-");
    const store = temp("ckpt-store-");
    const checkpoints = new WorkspaceCheckpoints(store, ws, { maxFileBytes: 1000 });
    const empty = checkpoints.take()!;
    writeFileSync(join(ws, "huge.bin"), Buffer.alloc(5000, 7));
    const withHuge = checkpoints.take()!;
    expect(checkpoints.treeOf(withHuge.tree).get("huge.bin")).toMatchObject({ kind: "file", size: 5000, over: true });
    expect(withHuge.storedBytes).toBeLessThan(1000);
    const report = checkpoints.restore(empty.tree);
    expect(report.notRestored.map((n) => n.path)).toEqual(["huge.bin"]);
    expect(report.notRestored[0]!.reason).toContain("size limit");
    expect(statSync(join(ws, "huge.bin")).size).toBe(5000);
  });

  it("stores every checkpoint's files gzip'd, the first too (no workspace text in plain under the data root); raw pack rows still read back; a dropped pack leaves no file", () => {
    const ws = temp("ckpt-ws-");
    const store = temp("ckpt-store-");
    const text = "compressible line of text\n".repeat(4000);
    writeFileSync(join(ws, "a.txt"), text);
    const checkpoints = new WorkspaceCheckpoints(store, ws);
    expect(checkpoints.take()!.storedBytes).toBeLessThan(text.length / 10);
    writeFileSync(join(ws, "a.txt"), `${text}more\n`);
    const second = checkpoints.take()!;
    expect(second.storedBytes).toBeLessThan(text.length / 10);
    // Both read back from a fresh store (raw and gzip'd rows of the pack indexes).
    const fresh = new WorkspaceCheckpoints(store, ws);
    expect(fresh.read(second.tree, "a.txt")!.bytes!.toString()).toBe(`${text}more\n`);
    const pending = new PackStore(store).pending("raw");
    pending.add(Buffer.from("never kept"));
    expect(readdirSync(join(store, "tmp"))).toHaveLength(1);
    pending.abandon();
    expect(readdirSync(join(store, "tmp"))).toEqual([]);
  });

  it("never lists a pack a crash left half written, and finds packs another process added", () => {
    const dir = temp("ckpt-store-");
    const a = new PackStore(dir);
    const pending = a.pending();
    const hash = pending.add(Buffer.from("hello"));
    pending.commit();
    writeFileSync(join(dir, "tmp", "torn.pack"), "PNGPACK1 half");
    writeFileSync(join(dir, "packs", "torn.pack"), Buffer.from("no trailer here"));
    const b = new PackStore(dir);
    expect(b.read(hash).toString()).toBe("hello");
    const later = a.pending();
    const other = later.add(Buffer.from("added later"));
    later.commit();
    expect(b.read(other).toString()).toBe("added later");
  });
});
