// edit_file through executeTool: unique matches, replace_all, literal replacement, refusals,
// truncation with its archive, a timeout and an interrupt.
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, sandbox, stalledDisk, type Sandbox } from "./helpers.js";

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

describe("edit_file", () => {
  it("replaces a unique match and replies with a diff", async () => {
    box = sandbox();
    const file = join(box.workspace, "app.js");
    writeFileSync(file, "const a = 1;\nconst b = 2;\n");
    const r = await call(box.env, "edit_file", { file_path: "app.js", old_string: "b = 2", new_string: "b = 3" });
    expect(r.stopReason).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("const a = 1;\nconst b = 3;\n");
    expect(r.output).toBe(
      "Replaced 1 occurrence(s) in app.js\n--- a/app.js\n+++ b/app.js\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n",
    );
  });

  it("refuses an ambiguous match unless replace_all, then replaces every one", async () => {
    box = sandbox();
    const file = join(box.workspace, "x.txt");
    writeFileSync(file, "foo bar foo baz foo\n");
    const ambiguous = await call(box.env, "edit_file", { file_path: "x.txt", old_string: "foo", new_string: "qux" });
    expect(ambiguous.stopReason).toBe("failed");
    expect(ambiguous.output).toContain("old_string occurs 3 times in x.txt");
    expect(readFileSync(file, "utf8")).toBe("foo bar foo baz foo\n");
    const all = await call(box.env, "edit_file", { file_path: "x.txt", old_string: "foo", new_string: "qux", replace_all: true });
    expect(all.output.startsWith("Replaced 3 occurrence(s) in x.txt\n")).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("qux bar qux baz qux\n");
  });

  it("replaces literally: `$&` and regex characters are plain text", async () => {
    box = sandbox();
    const file = join(box.workspace, "r.txt");
    writeFileSync(file, "price: (a+b)*\n");
    await call(box.env, "edit_file", { file_path: "r.txt", old_string: "(a+b)*", new_string: "$& $1 $$" });
    expect(readFileSync(file, "utf8")).toBe("price: $& $1 $$\n");
  });

  it("edits a CRLF file with LF text (as read_file shows it), keeping CRLF", async () => {
    box = sandbox();
    const file = join(box.workspace, "win.txt");
    writeFileSync(file, "one\r\ntwo\r\nthree\r\n");
    const r = await call(box.env, "edit_file", { file_path: "win.txt", old_string: "one\ntwo", new_string: "uno\ndos" });
    expect(r.stopReason).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("keeps the file mode and leaves no temporary file", async () => {
    box = sandbox();
    const file = join(box.workspace, "run.sh");
    writeFileSync(file, "echo one\n");
    chmodSync(file, 0o751);
    await call(box.env, "edit_file", { file_path: "run.sh", old_string: "one", new_string: "two" });
    expect(statSync(file).mode & 0o777).toBe(0o751);
    expect(readdirSync(box.workspace)).toEqual(["run.sh"]);
  });

  it("fails clearly: not found, missing file, empty or identical strings, secrets", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "hello\n");
    writeFileSync(join(box.workspace, ".vault.toml"), "K = 1\n");
    const cases: [Record<string, unknown>, string][] = [
      [{ file_path: "a.txt", old_string: "bye", new_string: "x" }, "old_string was not found in a.txt"],
      [{ file_path: "b.txt", old_string: "a", new_string: "b" }, "File not found: b.txt"],
      [{ file_path: "a.txt", old_string: "", new_string: "b" }, "old_string is empty"],
      [{ file_path: "a.txt", old_string: "hello", new_string: "hello" }, "identical"],
      [{ file_path: ".vault.toml", old_string: "K", new_string: "J" }, "holds secrets"],
    ];
    for (const [args, message] of cases) {
      const r = await call(box.env, "edit_file", args);
      expect(r.stopReason).toBe("failed");
      expect(r.output).toContain(message);
    }
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("hello\n");
  });

  it("truncates a long diff and archives all of it", async () => {
    box = sandbox({ limits: { outputChars: 200 } });
    const block = Array.from({ length: 300 }, (_, i) => `old line ${i}`).join("\n");
    writeFileSync(join(box.workspace, "big.txt"), `${block}\n`);
    const r = await call(box.env, "edit_file", { file_path: "big.txt", old_string: block, new_string: block.replaceAll("old", "new") }, { id: "edit-big" });
    const archive = join(box.scratchpad, "truncated-tool-output", "edit-big.txt");
    expect(r.stopReason).toBe("completed");
    expect(r.output).toContain(`the full output is saved at ${archive}]`);
    const full = readFileSync(archive, "utf8");
    expect(full.startsWith("Replaced 1 occurrence(s) in big.txt\n--- a/big.txt")).toBe(true);
    expect(full).toContain("+new line 299");
    expect(r.output.slice(0, 200)).toBe(full.slice(0, 200));
    expect(readFileSync(join(box.workspace, "big.txt"), "utf8")).toContain("new line 299");
  });

  it("times out on a disk that never answers, leaving the file alone", async () => {
    const disk = stalledDisk("writeAtomic");
    box = sandbox({ fileOperations: disk.operations, timeouts: { edit_file: 50 } });
    writeFileSync(join(box.workspace, "a.txt"), "hello\n");
    const r = await call(box.env, "edit_file", { file_path: "a.txt", old_string: "hello", new_string: "bye" });
    expect(r.stopReason).toBe("timeout");
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("hello\n");
  });

  it("ends with aborted when interrupted mid-write", async () => {
    const disk = stalledDisk("writeAtomic");
    box = sandbox({ fileOperations: disk.operations });
    writeFileSync(join(box.workspace, "a.txt"), "hello\n");
    const ctrl = new AbortController();
    const pending = call(box.env, "edit_file", { file_path: "a.txt", old_string: "hello", new_string: "bye" }, { signal: ctrl.signal });
    await disk.entered;
    ctrl.abort();
    const r = await pending;
    expect(r.stopReason).toBe("aborted");
    expect(r.output).toBe("[interrupted: tool aborted by user]");
  });
});
