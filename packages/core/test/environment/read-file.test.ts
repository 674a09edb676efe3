// read_file through executeTool: numbering, windows, refusals, truncation with its archive,
// a timeout and an interrupt (the last two on a disk that never answers).
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, sandbox, stalledDisk, type Sandbox } from "./helpers.js";

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

function lines(n: number, make: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => `${make(i + 1)}\n`).join("");
}

describe("read_file", () => {
  it("numbers lines like cat -n, relative to the workspace", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "alpha\r\nbeta\n\ngamma");
    const r = await call(box.env, "read_file", { file_path: "a.txt" });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toBe("     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n");
  });

  it("reads a window with offset and limit and says how to continue", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "n.txt"), lines(10, (i) => `line ${i}`));
    const r = await call(box.env, "read_file", { file_path: join(box.workspace, "n.txt"), offset: 4, limit: 3 });
    expect(r.output).toBe(
      "     4\tline 4\n     5\tline 5\n     6\tline 6\n[showing lines 4-6 of 10; continue with offset=7]",
    );
  });

  it("cuts lines over 2000 characters", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "long.txt"), `${"x".repeat(2500)}\nshort\n`);
    const r = await call(box.env, "read_file", { file_path: "long.txt" });
    expect(r.output).toContain(`\t${"x".repeat(2000)} [… line cut, 500 more characters]\n`);
    expect(r.output).toContain("     2\tshort");
  });

  it("fails on a missing file, a directory, and an offset past the end", async () => {
    box = sandbox();
    mkdirSync(join(box.workspace, "dir"));
    writeFileSync(join(box.workspace, "two.txt"), "a\nb\n");
    const missing = await call(box.env, "read_file", { file_path: "nope.txt" });
    expect(missing.stopReason).toBe("failed");
    expect(missing.output).toBe("File not found: nope.txt");
    const dir = await call(box.env, "read_file", { file_path: "dir" });
    expect(dir.output).toContain("dir is a directory");
    const past = await call(box.env, "read_file", { file_path: "two.txt", offset: 5 });
    expect(past.stopReason).toBe("failed");
    expect(past.output).toContain("offset 5 is past the end of two.txt, which has 2 lines");
  });

  it("refuses binary files", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "blob.bin"), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]));
    const r = await call(box.env, "read_file", { file_path: "blob.bin" });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("looks like a binary file (7 bytes)");
  });

  it("refuses the two secret files, also behind a symlink", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, ".vault.toml"), 'TOKEN = "hunter2"\n');
    writeFileSync(join(box.workspace, ".project_config.toml"), 'api_key = "sk-secret"\n');
    symlinkSync(join(box.workspace, ".vault.toml"), join(box.workspace, "innocent.txt"));
    for (const file of [".vault.toml", ".project_config.toml", "innocent.txt"]) {
      const r = await call(box.env, "read_file", { file_path: file });
      expect(r.stopReason).toBe("failed");
      expect(r.output).toContain("holds secrets");
      expect(r.output).not.toContain("hunter2");
      expect(r.output).not.toContain("sk-secret");
    }
  });

  it("keeps the first 64000 characters and archives the whole output", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "big.txt"), lines(3000, (i) => `row ${i} ${"y".repeat(30)}`));
    const r = await call(box.env, "read_file", { file_path: "big.txt", limit: 3000 }, { id: "call_read_big" });
    const archive = join(box.scratchpad, "truncated-tool-output", "call_read_big.txt");
    expect(r.output).toContain(`[output truncated: showing the first 64000 of`);
    expect(r.output).toContain(`the full output is saved at ${archive}]`);
    expect(r.output.startsWith("     1\trow 1 ")).toBe(true);
    const full = readFileSync(archive, "utf8");
    expect(full.length).toBeGreaterThan(64000);
    expect(full.endsWith(`  3000\trow 3000 ${"y".repeat(30)}\n`)).toBe(true);
    expect(r.output.slice(0, 64000)).toBe(full.slice(0, 64000));
  });

  it("times out on a disk that never answers", async () => {
    const disk = stalledDisk("readBytes");
    box = sandbox({ fileOperations: disk.operations, timeouts: { read_file: 50 } });
    writeFileSync(join(box.workspace, "a.txt"), "a\n");
    const r = await call(box.env, "read_file", { file_path: "a.txt" });
    expect(r.stopReason).toBe("timeout");
    expect(r.output).toBe("[timed out after 50 ms]");
  });

  it("ends promptly with aborted when interrupted mid-read, or before it starts", async () => {
    const disk = stalledDisk("readBytes");
    box = sandbox({ fileOperations: disk.operations });
    writeFileSync(join(box.workspace, "a.txt"), "a\n");
    const ctrl = new AbortController();
    const pending = call(box.env, "read_file", { file_path: "a.txt" }, { signal: ctrl.signal });
    await disk.entered;
    ctrl.abort();
    const r = await pending;
    expect(r.stopReason).toBe("aborted");
    expect(r.output).toBe("[interrupted: tool aborted by user]");
    const early = await call(box.env, "read_file", { file_path: "a.txt" }, { signal: AbortSignal.abort() });
    expect(early.stopReason).toBe("aborted");
  });

  it("given a dozen reads at once, when they run, then Node warns of no listener leak (each listens to the environment's dispose signal while it runs)", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "alpha\n");
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(`${w.name}: ${w.message}`);
    };
    process.on("warning", onWarning);
    try {
      const results = await Promise.all(Array.from({ length: 12 }, () => call(box!.env, "read_file", { file_path: "a.txt" })));
      expect(results.map((r) => r.stopReason)).toEqual(Array(12).fill("completed"));
      // Node emits its warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });
});
