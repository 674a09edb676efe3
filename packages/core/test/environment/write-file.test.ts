// write_file through executeTool: create and overwrite with diffs, atomic replacement (the
// content is whole and no temporary file remains), refusals, truncation, timeout, interrupt.
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, sandbox, stalledDisk, type Sandbox } from "./helpers.js";

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

describe("write_file", () => {
  it("creates a file and its directories, replying Created with a diff", async () => {
    box = sandbox();
    const r = await call(box.env, "write_file", { file_path: "deep/er/new.txt", content: "one\ntwo\n" });
    expect(r.stopReason).toBe("completed");
    expect(readFileSync(join(box.workspace, "deep/er/new.txt"), "utf8")).toBe("one\ntwo\n");
    expect(r.output).toBe("Created deep/er/new.txt (8 bytes)\n--- /dev/null\n+++ b/deep/er/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n");
  });

  it("overwrites with a diff against the old content and keeps the mode", async () => {
    box = sandbox();
    const file = join(box.workspace, "conf.ini");
    writeFileSync(file, "a=1\nb=2\n");
    chmodSync(file, 0o600);
    const r = await call(box.env, "write_file", { file_path: file, content: "a=1\nb=3\n" });
    expect(r.output).toBe("Overwrote conf.ini (8 bytes)\n--- a/conf.ini\n+++ b/conf.ini\n@@ -1,2 +1,2 @@\n a=1\n-b=2\n+b=3\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("writes atomically: the content is complete and no temporary file is left", async () => {
    box = sandbox();
    const content = `${"0123456789abcdef".repeat(64 * 1024)}end\n`; // 1 MiB and a bit
    writeFileSync(join(box.workspace, "data.txt"), "old\n");
    await call(box.env, "write_file", { file_path: "data.txt", content });
    expect(readFileSync(join(box.workspace, "data.txt"), "utf8")).toBe(content);
    expect(readdirSync(box.workspace)).toEqual(["data.txt"]);
  });

  it("writes through a symlink, which stays a symlink", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "real.txt"), "old\n");
    symlinkSync("real.txt", join(box.workspace, "link.txt"));
    await call(box.env, "write_file", { file_path: "link.txt", content: "new\n" });
    expect(lstatSync(join(box.workspace, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(box.workspace, "real.txt"), "utf8")).toBe("new\n");
    expect(readdirSync(box.workspace).sort()).toEqual(["link.txt", "real.txt"]);
  });

  it("says so when the content did not change or the old file was binary", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "same.txt"), "x\n");
    const same = await call(box.env, "write_file", { file_path: "same.txt", content: "x\n" });
    expect(same.output).toBe("Overwrote same.txt (2 bytes)\n[content unchanged]");
    writeFileSync(join(box.workspace, "was.bin"), Buffer.from([0, 1, 2]));
    const bin = await call(box.env, "write_file", { file_path: "was.bin", content: "text\n" });
    expect(bin.output).toContain("[no diff: the previous content was binary or too large]");
    expect(readFileSync(join(box.workspace, "was.bin"), "utf8")).toBe("text\n");
  });

  it("fails on a directory target and on the secret files", async () => {
    box = sandbox();
    mkdirSync(join(box.workspace, "dir"));
    const dir = await call(box.env, "write_file", { file_path: "dir", content: "x" });
    expect(dir.stopReason).toBe("failed");
    expect(dir.output).toContain("is a directory");
    const secret = await call(box.env, "write_file", { file_path: "sub/.project_config.toml", content: "x" });
    expect(secret.stopReason).toBe("failed");
    expect(secret.output).toContain("holds secrets");
    expect(readdirSync(box.workspace)).toEqual(["dir"]);
  });

  it("truncates a long diff and archives all of it", async () => {
    box = sandbox({ limits: { outputChars: 100 } });
    const content = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n");
    const r = await call(box.env, "write_file", { file_path: "l.txt", content }, { id: "write-long" });
    const archive = join(box.scratchpad, "truncated-tool-output", "write-long.txt");
    expect(r.output).toContain(`showing the first 100 of`);
    expect(r.output).toContain(archive);
    const full = readFileSync(archive, "utf8");
    expect(full).toContain("+line 499");
    expect(r.output.slice(0, 100)).toBe(full.slice(0, 100));
  });

  it("times out on a disk that never answers", async () => {
    const disk = stalledDisk("writeAtomic");
    box = sandbox({ fileOperations: disk.operations, timeouts: { write_file: 50 } });
    const r = await call(box.env, "write_file", { file_path: "a.txt", content: "x" });
    expect(r.stopReason).toBe("timeout");
    expect(r.output).toBe("[timed out after 50 ms]");
  });

  it("ends with aborted when interrupted mid-write", async () => {
    const disk = stalledDisk("writeAtomic");
    box = sandbox({ fileOperations: disk.operations });
    const ctrl = new AbortController();
    const pending = call(box.env, "write_file", { file_path: "a.txt", content: "x" }, { signal: ctrl.signal });
    await disk.entered;
    ctrl.abort();
    const r = await pending;
    expect(r.stopReason).toBe("aborted");
  });
});
