// `penguin chat` as a terminal UI, driven in a real pseudo-terminal against the testkit's
// scripted model, its output rendered by a terminal emulator (@xterm/headless): each test
// asserts on the screen as a person sees it, and saves the screen of the moment it checks as
// test-artifacts/tui-screens/<name>.txt (kept by CI). Covered: a slow answer streaming with the
// spinner and status line; the diff of a write_file shown before it runs; allow-for-session
// (no second question, the rule in the trace); deny with a note reaching the model; an
// @-mention completed and attached (.gitignore respected); slash completion, /cost and /fork;
// Esc interrupting (queued steering back in the editor); a resize; history across chats;
// NO_COLOR; /undo and /rewind N taking files and conversation back; the prompt drawn before
// the session is open (a line typed then is sent), and a warning written while it opens shown
// as a transcript line.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnScreen, type ScreenCli } from "./helpers/screen-pty.js";
import { traceMessages } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let cli: ScreenCli | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail" && cli !== undefined) console.warn(`[chat-tui] the screen when "${ctx.task.name}" failed:\n${cli.screen()}`);
  cli?.kill();
  cli = undefined;
  await world?.cleanup();
  world = undefined;
});

const READY = "● ready";
const QUESTION = "Approve this tool call?";
const shell = (id: string, cmd: string) => ({ toolCalls: [{ name: "exec_command", id, arguments: { cmd, description: "run it" } }] });
const sessionOf = (text: string): string => /session (session-[\w-]+)/.exec(text)?.[1] ?? "";
const count = (text: string, what: string): number => text.split(what).length - 1;

function chat(w: World, args: string[] = [], size?: { cols: number; rows: number }): ScreenCli {
  return spawnScreen(["chat", ...args, "--workspace", w.workspace], w.env, size);
}

describe("penguin chat, the terminal UI", () => {
  it("draws the prompt before the session is open; a line typed at once is sent when it is", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "got the early line" }] });
    cli = chat(world);
    await cli.waitFor("◌ opening the session");
    cli.write("typed at the first frame\r");
    await cli.waitFor(/got the early line[\s\S]*\[stats\]/);
    cli.save("prompt-first");
    // The first frame is written before the banner, which the open session draws.
    const raw = cli.raw();
    expect(raw.indexOf("opening the session")).toBeGreaterThanOrEqual(0);
    expect(raw.indexOf("opening the session")).toBeLessThan(raw.indexOf("penguin chat"));
    expect(world.kit.requests[0]!.messages.map((m) => m.text ?? "").join("\n")).toContain("typed at the first frame");
  });

  it("Ctrl-C twice as the prompt appears leaves cleanly, before, across or after the session's opening", { timeout: 30_000 }, async () => {
    world = await startWorld();
    cli = chat(world);
    await cli.waitFor("◌ opening the session");
    cli.write("\u0003");
    cli.write("\u0003");
    expect((await cli.exit).exitCode).toBe(0);
    // The session was opened and then disposed: the line to resume it is the last thing written.
    expect(cli.all()).toMatch(/penguin chat --resume session-[\w-]+\s*$/);
  });

  it("shows a warning written while the session opens as a line of the transcript, above the banner", { timeout: 30_000 }, async () => {
    // A bwrap that fails as one without user namespaces: the sandbox probe's warning goes to stderr.
    const bin = mkdtempSync(join(tmpdir(), "penguin-tui-bwrap-"));
    try {
      writeFileSync(join(bin, "bwrap"), '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n');
      chmodSync(join(bin, "bwrap"), 0o755);
      world = await startWorld();
      cli = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, PATH: `${bin}${delimiter}${process.env["PATH"] ?? ""}` });
      await cli.waitFor(READY);
      await cli.waitFor("sandbox off");
      cli.save("warning-while-opening");
      const rows = cli.all().split("\n");
      const warning = rows.findIndex((r) => r.startsWith("penguin: commands run unsandboxed:"));
      const banner = rows.findIndex((r) => r.startsWith("penguin chat ·"));
      expect(warning).toBeGreaterThanOrEqual(0);
      expect(warning).toBeLessThan(banner);
      // Drawn once, as a transcript line: not also left across the editor or the status line.
      expect(rows.filter((r) => r.includes("commands run unsandboxed"))).toHaveLength(1);
      expect(rows.slice(banner).join("\n")).not.toContain("unsandboxed");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("streams a slow answer as it comes, with the spinner and the status line", { timeout: 30_000 }, async () => {
    const answer = "The first part of a slow answer arrives now, and the rest never comes.";
    world = await startWorld({ script: [{ text: answer, chunkSize: 8, fault: { kind: "hang", afterEvents: 5 } }] });
    cli = chat(world, ["--approve", "read-only"]);
    await cli.waitFor(READY);
    cli.write("tell me slowly\r");
    // Part of the answer is on the screen while the request is still open (it never finishes).
    await cli.waitFor((s) => s.includes("The first part") && !s.includes("never comes") && /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] working \d/.test(s), "partial text with the spinner");
    const screen = cli.screen();
    expect(screen).toMatch(/working \d+(\.\d+)?s · tokens \S+ in \/ \S+ out · \$\d/);
    expect(screen).toContain("approvals read-only");
    expect(screen).toMatch(/sandbox (on|off)/);
    expect(screen).toContain("context ");
    expect(world.kit.requests).toHaveLength(1);
    cli.save("streaming-answer");
  });

  it("shows the diff of a write_file before it runs, and runs it once allowed", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ toolCalls: [{ name: "write_file", id: "call_wd1", arguments: { file_path: "notes.txt", content: "alpha\nBETA\ngamma\n" } }] }, { text: "written" }] });
    writeFileSync(join(world.workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
    cli = chat(world, ["--approve", "always-ask"]);
    await cli.waitFor(READY);
    cli.write("change beta\r");
    await cli.waitFor(QUESTION);
    await cli.waitFor((s) => /- beta/.test(s) && /\+ BETA/.test(s) && s.includes("allow write_file for this session"), "the diff and the choices");
    // Nothing is written while the question is open.
    expect(readFileSync(join(world.workspace, "notes.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
    const screen = cli.screen();
    expect(screen.indexOf("- beta")).toBeLessThan(screen.indexOf("+ BETA"));
    expect(screen).toMatch(/1 y\s+allow once[\s\S]*2 a\s+allow write_file for this session[\s\S]*3 n\s+deny[\s\S]*4 d\s+deny with a note/);
    cli.save("approval-write-diff");
    cli.write("y");
    await cli.waitFor(/written[\s\S]*\[stats\]/);
    expect(readFileSync(join(world.workspace, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(cli.all()).toContain("✓ [approved] once");
  });

  it("allow for the session: the same command runs again without a question, and the rule is in the trace", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [shell("call_as1", "echo first-$((1+1))"), { text: "one done" }, shell("call_as2", "echo second-$((2+1))"), { text: "two done" }] });
    cli = chat(world, ["--approve", "always-ask", "--no-sandbox"]);
    await cli.waitFor(READY);
    const sessionId = sessionOf(cli.all());
    cli.write("first\r");
    await cli.waitFor("allow `echo` commands for this session");
    cli.write("a");
    await cli.waitFor(/one done[\s\S]*\[stats\]/);
    cli.write("second\r");
    await cli.waitFor(/two done[\s\S]*\[stats\]/);
    cli.save("allow-for-session");
    const all = cli.all();
    expect(all).toContain("[rule] exec_command `echo` is allowed for the rest of this session");
    expect(world.kit.requests[3]!.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "").join("\n")).toContain("second-3");
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
    // One question for two calls: the second was allowed by the rule, recorded before the first decision.
    const events = traceMessages(world.root, sessionId).flatMap((m) => (m.type === "event_msg" ? [m.payload] : []));
    expect(events.filter((e) => e.type === "approval_requested").map((e) => e.type === "approval_requested" && e.tool_call_id)).toEqual(["call_as1"]);
    expect(events.filter((e) => e.type === "approval_rule")).toEqual([{ type: "approval_rule", tool: "exec_command", command_prefix: "echo", tool_call_id: "call_as1" }]);
    expect(events.filter((e) => e.type === "approval_decision").map((e) => e.type === "approval_decision" && e.decision)).toEqual(["allow", "allow"]);
  });

  it("deny with a note: the note reaches the model's next request", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [shell("call_dn1", "rm -rf build"), { text: "understood" }] });
    cli = chat(world, ["--approve", "always-ask"]);
    await cli.waitFor(READY);
    cli.write("clean up\r");
    await cli.waitFor(QUESTION);
    expect(cli.screen()).toContain("$ rm -rf build");
    cli.write("d");
    await cli.waitFor("note to the model");
    cli.write("keep build, delete dist instead\r");
    await cli.waitFor(/understood[\s\S]*\[stats\]/);
    cli.save("deny-with-note");
    expect(cli.all()).toContain("✗ [denied] with a note: keep build, delete dist instead");
    const output = world.kit.requests[1]!.messages.find((m) => m.kind === "tool_result");
    expect(output?.text).toBe("Tool call denied by user. The user's note: keep build, delete dist instead");
  });

  it("an @-mention completes a workspace path (skipping .gitignore'd files) and attaches the file", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "read it" }] });
    mkdirSync(join(world.workspace, "src", "deep"), { recursive: true });
    writeFileSync(join(world.workspace, "src", "deep", "notes-file.md"), "# Notes\nthe secret word is pelican\n");
    writeFileSync(join(world.workspace, "ignored-notes-file.md"), "ignored\n");
    writeFileSync(join(world.workspace, ".gitignore"), "ignored-*.md\n");
    cli = chat(world);
    await cli.waitFor(READY);
    cli.write("summarize @notfi");
    await cli.waitFor("src/deep/notes-file.md");
    expect(cli.screen()).not.toContain("ignored-notes-file.md");
    cli.save("mention-completion");
    cli.write("\t");
    await cli.waitFor("summarize @src/deep/notes-file.md");
    cli.write("please\r");
    await cli.waitFor(/read it[\s\S]*\[stats\]/);
    expect(cli.all()).toContain("[attached] src/deep/notes-file.md (3 lines)");
    const sent = world.kit.requests[0]!.messages.map((m) => m.text ?? "").join("\n");
    expect(sent).toContain("summarize @src/deep/notes-file.md please");
    expect(sent).toContain('<file path="src/deep/notes-file.md">\n# Notes\nthe secret word is pelican\n</file>');
  });

  it("completes slash commands; /cost shows the session's cost; /fork continues in a copy", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "answer in the fork" }] });
    cli = chat(world);
    await cli.waitFor(READY);
    const original = sessionOf(cli.all());
    cli.write("remember the word heron\r");
    await cli.waitFor(/first answer[\s\S]*\[stats\]/);
    cli.write("/co");
    await cli.waitFor((s) => /compact\s/.test(s) && /cost\s/.test(s), "the completion list");
    cli.save("slash-completion");
    cli.write("\x7f\x7f\x7f");
    await cli.waitFor((s) => !/compact\s/.test(s.split(READY).pop() ?? ""), "the list closed");
    cli.write("/cost\r");
    await cli.waitFor(/cost so far: \$0\.\d+ · tokens \S+ in \/ \S+ out · context [^·]+ · 1 turn/);
    cli.save("cost");
    cli.write("/fork\r");
    await cli.waitFor(/\[session\] forked from session-[\w-]+: now in (session-[\w-]+)/);
    const forked = /now in (session-[\w-]+)/.exec(cli.all())![1]!;
    expect(forked).not.toBe(original);
    cli.write("and now?\r");
    await cli.waitFor(/answer in the fork[\s\S]*\[stats\]/);
    cli.save("fork");
    const sent = world.kit.requests[1]!.messages.map((m) => m.text ?? "").join("\n");
    expect(sent).toContain("remember the word heron");
    expect(sent).toContain("and now?");
    expect(traceMessages(world.root, forked).some((m) => m.type === "event_msg" && m.payload.type === "forked_from")).toBe(true);
  });

  it("Esc interrupts the running task and gives queued steering back to the editor", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "thinking about it for a long while", chunkSize: 4, fault: { kind: "hang", afterEvents: 3 } }, { text: "back again" }] });
    cli = chat(world);
    await cli.waitFor(READY);
    cli.write("start something\r");
    await world.kit.waitForRequests(1);
    await cli.waitFor("thin");
    cli.write("also check the logs\r");
    await cli.waitFor("[steer] queued for the next turn: also check the logs");
    cli.write("\x1b");
    await cli.waitFor(/\[interrupted\][\s\S]*\[stats\]/);
    await cli.waitFor(READY);
    // The steering never reached the model; it is back in the editor, ready to send.
    await cli.waitFor((s) => /│?\s*also check the logs\s*$/m.test(s.split(READY).pop() ?? ""), "the steering text in the editor");
    cli.save("esc-interrupted");
    cli.write("\r");
    await cli.waitFor(/back again[\s\S]*\[stats\]/);
    const second = world.kit.requests[1]!.messages.map((m) => m.text ?? "").join("\n");
    expect(second).toContain("also check the logs");
    expect(second).not.toContain("[user_steering]");
  });

  it("survives a resize to a narrow terminal: everything is redrawn to the new width", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "A reasonably long answer line that will need wrapping once the terminal becomes narrow." }] });
    cli = chat(world, [], { cols: 120, rows: 30 });
    await cli.waitFor(READY);
    cli.write("answer\r");
    await cli.waitFor(/\[stats\]/);
    cli.resize(44, 30);
    // The editor's border is drawn to the width: 44 dashes exactly once the UI has redrawn.
    await cli.waitFor((s) => s.split("\n").some((row) => row === "─".repeat(44)), "a 44-column redraw");
    await cli.waitFor(() => cli!.screen().includes("approvals"), "the status line after the redraw");
    const rows = cli.screen().split("\n");
    expect(rows.every((r) => r.length <= 44)).toBe(true);
    expect(cli.screen()).toMatch(/answer line that will need/);
    cli.save("resized-narrow");
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
  });

  it("keeps the input history per workspace: ↑ in a new chat brings back the last message", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "noted" }] });
    cli = chat(world);
    await cli.waitFor(READY);
    cli.write("a message worth repeating\r");
    await cli.waitFor(/noted[\s\S]*\[stats\]/);
    cli.write("/exit\r");
    await cli.exit;
    cli = chat(world);
    await cli.waitFor(READY);
    cli.write("\x1b[A");
    await cli.waitFor((s) => (s.split(READY).pop() ?? "").includes("/exit"), "the last line in the editor");
    cli.write("\x1b[A");
    await cli.waitFor((s) => (s.split(READY).pop() ?? "").includes("a message worth repeating"), "the line before it in the editor");
    cli.save("history-recalled");
  });

  it("shows a long paste collapsed in the editor and sends it whole", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "got the log" }] });
    cli = chat(world);
    await cli.waitFor(READY);
    const pasted = Array.from({ length: 30 }, (_, i) => `log line ${i + 1}`).join("\n");
    cli.write(`explain \u001b[200~${pasted}\u001b[201~`);
    await cli.waitFor((s) => /\[paste #1 \+30 lines\]/.test(s.split(READY).pop() ?? ""), "the collapsed paste in the editor");
    expect(cli.screen()).not.toContain("log line 17");
    cli.save("paste-collapsed");
    cli.write("\r");
    await cli.waitFor(/got the log[\s\S]*\[stats\]/);
    const sent = world.kit.requests[0]!.messages.map((m) => m.text ?? "").join("\n");
    expect(sent).toContain("log line 1\n");
    expect(sent).toContain("log line 30");
  });

  it("/approve changes the mode, /sessions lists this session, /inspect shows a record", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "hello" }] });
    cli = chat(world);
    await cli.waitFor(READY);
    const id = sessionOf(cli.all());
    cli.write("/approve allow-all\r");
    await cli.waitFor("approvals: allow-all");
    await cli.waitFor((s) => (s.split("approvals: allow-all").pop() ?? "").includes("approvals allow-all · sandbox"), "the status line's new mode");
    cli.write("/approve sometimes\r");
    await cli.waitFor('unknown approval mode "sometimes": use one of allow-all, deny-all, read-only, always-ask');
    cli.write("say hello\r");
    await cli.waitFor(/hello[\s\S]*\[stats\]/);
    cli.write("/sessions\r");
    await cli.waitFor(`* ${id}`);
    cli.write("/inspect 2\r");
    await cli.waitFor(/record 2 of \d+ · \d+ turns/);
    await cli.waitFor("/fork 2 continues from here");
    cli.write("/inspect two\r");
    await cli.waitFor("usage: /inspect [N], N a record number");
    cli.save("approve-sessions-inspect");
  });

  it("/undo takes back the last task's file and conversation; /rewind N undoes the undo", { timeout: 45_000 }, async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_un1", arguments: { file_path: "kept.txt", content: "kept\n" } }] },
        { text: "wrote kept" },
        { toolCalls: [{ name: "write_file", id: "call_un2", arguments: { file_path: "undone.txt", content: "undone\n" } }] },
        { text: "wrote undone" },
        { text: "going on after the undo" },
      ],
    });
    cli = chat(world, ["--approve", "allow-all"]);
    await cli.waitFor(READY);
    cli.write("write kept\r");
    await cli.waitFor(/wrote kept[\s\S]*\[stats\]/);
    cli.write("write undone please\r");
    await cli.waitFor(/wrote undone[\s\S]*\[stats\]/);
    expect(readFileSync(join(world.workspace, "undone.txt"), "utf8")).toBe("undone\n");
    cli.write("/undo\r");
    await cli.waitFor(/undo the files with: \/rewind (\d+)/);
    cli.save("undo");
    expect(cli.all()).toMatch(/\[rewind\] files back to record \d+ .*: 0 written, 1 removed/);
    expect(existsSync(join(world.workspace, "undone.txt"))).toBe(false);
    expect(readFileSync(join(world.workspace, "kept.txt"), "utf8")).toBe("kept\n");
    cli.write("go on\r");
    await cli.waitFor(/going on after the undo[\s\S]*\[stats\]/);
    const sent = world.kit.requests.at(-1)!.messages.map((m) => m.text ?? "");
    expect(sent).toContain("write kept");
    expect(sent).toContain("go on");
    expect(sent).not.toContain("write undone please");
    expect(sent).not.toContain("wrote undone");
    // The undo is itself undoable: the record it named brings the file back.
    const undoRecord = /undo the files with: \/rewind (\d+)/.exec(cli.all())![1]!;
    cli.write(`/rewind ${undoRecord}\r`);
    await cli.waitFor(/\[rewind\] files back to record \d+ .*: 1 written, 0 removed/);
    expect(readFileSync(join(world.workspace, "undone.txt"), "utf8")).toBe("undone\n");
    cli.write("/rewind x\r");
    await cli.waitFor("usage: /rewind N");
    // An edit made outside the session is named and kept, unless --force records it and rewinds anyway.
    writeFileSync(join(world.workspace, "stray.txt"), "by hand\n");
    const rewinds = count(cli.all(), "[rewind] files back");
    cli.write("/undo\r");
    await cli.waitFor(/error: the workspace holds changes made outside the session since its last checkpoint: stray\.txt/);
    expect(count(cli.all(), "[rewind] files back")).toBe(rewinds);
    cli.write("/undo --force\r");
    await cli.waitFor((s) => count(s, "[rewind] files back") > rewinds, "the forced undo");
    expect(existsSync(join(world.workspace, "stray.txt"))).toBe(false);
  });

  it("writes no colour codes with NO_COLOR", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "Some **bold** and `code`." }] });
    cli = chat(world);
    await cli.waitFor(READY);
    cli.write("go\r");
    await cli.waitFor(/\[stats\]/);
    expect(cli.screen()).toContain("Some bold and code.");
    expect(cli.raw()).not.toMatch(/\u001b\[(1|2|3\d|9\d|38;[\d;]+)m/);
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
  });
});
