// The terminal UI's pure parts, without a terminal: the line diff of the approval panel, the
// workspace file list and fuzzy ranking of @-mentions (.gitignore respected), what a mention
// attaches (text, image, nothing from outside the workspace), the per-workspace history file,
// and the slash table's lookup.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callDiff, diffLines } from "../src/tui/diff-view.js";
import { fuzzyFiles, readMentions, textWithAttachments, workspaceFiles } from "../src/tui/file-mentions.js";
import { appendHistory, historyFile, readHistory } from "../src/tui/input-history.js";
import { findCommand, SLASH_TABLE } from "../src/tui/slash-table.js";

const dirs: string[] = [];
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "penguin-tui-parts-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("diffLines", () => {
  it("shows a changed line as - then +, with context around it and a gap for far lines", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n") + "\n";
    const after = ["a", "b", "c", "d", "e", "f", "G", "h"].join("\n") + "\n";
    expect(diffLines(before, after)).toEqual([
      { kind: "gap", hidden: 4 },
      { kind: "same", text: "e" },
      { kind: "same", text: "f" },
      { kind: "del", text: "g" },
      { kind: "add", text: "G" },
      { kind: "same", text: "h" },
    ]);
  });

  it("a new file is all additions; an edit diffs old_string against new_string", () => {
    const ws = temp();
    expect(callDiff("write_file", JSON.stringify({ file_path: "new.txt", content: "x\ny\n" }), ws)).toEqual([
      { kind: "add", text: "x" },
      { kind: "add", text: "y" },
    ]);
    expect(callDiff("edit_file", JSON.stringify({ file_path: "a", old_string: "one", new_string: "two" }), ws)).toEqual([
      { kind: "del", text: "one" },
      { kind: "add", text: "two" },
    ]);
    expect(callDiff("exec_command", JSON.stringify({ cmd: "ls" }), ws)).toBeUndefined();
  });

  it("never reads a file outside the workspace for a write's diff (a symlink out is shown as a new file)", () => {
    const ws = temp();
    const outside = temp();
    writeFileSync(join(outside, "secret.txt"), "top secret\n");
    symlinkSync(join(outside, "secret.txt"), join(ws, "link.txt"));
    const diff = callDiff("write_file", JSON.stringify({ file_path: "link.txt", content: "new\n" }), ws);
    expect(diff).toEqual([{ kind: "add", text: "new" }]);
    expect(callDiff("write_file", JSON.stringify({ file_path: join(outside, "secret.txt"), content: "new\n" }), ws)).toEqual([{ kind: "add", text: "new" }]);
  });
});

describe("@-mentions", () => {
  it("lists the workspace's files without .gitignore'd ones, .git or node_modules, and ranks a fuzzy query", () => {
    const ws = temp();
    mkdirSync(join(ws, "src", "deep"), { recursive: true });
    mkdirSync(join(ws, "node_modules", "pkg"), { recursive: true });
    mkdirSync(join(ws, "build"), { recursive: true });
    writeFileSync(join(ws, "src", "deep", "notes-file.md"), "n\n");
    writeFileSync(join(ws, "src", "main.ts"), "m\n");
    writeFileSync(join(ws, "node_modules", "pkg", "index.js"), "x\n");
    writeFileSync(join(ws, "build", "out.js"), "x\n");
    writeFileSync(join(ws, "debug.log"), "x\n");
    writeFileSync(join(ws, ".gitignore"), "build/\n*.log\n");
    const files = workspaceFiles(ws);
    expect(files).toEqual([".gitignore", "src/deep/notes-file.md", "src/main.ts"]);
    expect(fuzzyFiles(files, "notfi")).toEqual(["src/deep/notes-file.md"]);
    expect(fuzzyFiles(files, "main")[0]).toBe("src/main.ts");
    expect(fuzzyFiles(files, "zzz")).toEqual([]);
  });

  it("attaches a mentioned text file and an image, and nothing outside the workspace", () => {
    const ws = temp();
    const outside = temp();
    writeFileSync(join(ws, "a.txt"), "alpha\n");
    writeFileSync(join(ws, "pic.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    writeFileSync(join(outside, "secret.txt"), "top secret\n");
    symlinkSync(join(outside, "secret.txt"), join(ws, "link.txt"));
    const got = readMentions(`look at @a.txt, @pic.png and @link.txt and @../${outside.split("/").pop()}/secret.txt`, ws);
    expect(got).toEqual([
      { kind: "text", path: "a.txt", content: "alpha\n" },
      { kind: "image", path: "pic.png", mimeType: "image/png", base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString("base64") },
      { kind: "skipped", path: "link.txt", why: "outside the workspace" },
      { kind: "skipped", path: `../${outside.split("/").pop()}/secret.txt`, why: "outside the workspace" },
    ]);
    expect(textWithAttachments("look at @a.txt", got)).toBe('look at @a.txt\n\n<file path="a.txt">\nalpha\n</file>');
  });
});

describe("input history", () => {
  it("is kept per workspace, oldest first, and survives a torn line", () => {
    const agentDir = temp();
    const one = historyFile(agentDir, "/work/one");
    const two = historyFile(agentDir, "/work/two");
    expect(one).not.toBe(two);
    appendHistory(one, "first");
    appendHistory(one, "second\nline");
    writeFileSync(one, `${readHistory(one).map((e) => JSON.stringify(e)).join("\n")}\n{"torn`, { flag: "w" });
    appendHistory(one, "third");
    expect(readHistory(one)).toEqual(["first", "second\nline", "third"]);
    expect(readHistory(two)).toEqual([]);
  });
});

describe("the slash table", () => {
  it("finds commands by name and alias, with their arguments; every issue command is there", () => {
    expect(findCommand("/fork 12").command?.name).toBe("fork");
    expect(findCommand("/fork 12").args).toBe("12");
    expect(findCommand("/goal:500k ship it").command?.name).toBe("goal");
    expect(findCommand("/quit").command?.name).toBe("exit");
    expect(findCommand("/nope").command).toBeUndefined();
    const names = SLASH_TABLE.map((c) => c.name);
    for (const n of ["help", "model", "approve", "cost", "sessions", "resume", "compact", "fork", "inspect"]) expect(names).toContain(n);
  });
});
