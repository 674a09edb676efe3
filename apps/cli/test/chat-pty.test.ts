// `penguin chat` in a real pseudo-terminal, now the terminal UI (the screen rendered by
// @xterm/headless, see helpers/screen-pty.ts): approvals answered with y and n, Ctrl-C at an
// approval (denies), Ctrl-C during a hung request (aborts the task, the chat goes on),
// Ctrl-C twice at an empty prompt (exits), steering by typing while a task runs, and
// markdown with colours when they are on. Ported from the line REPL's version of these
// tests: the same behaviours, read from the screen instead of the byte stream.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnScreen, type ScreenCli } from "./helpers/screen-pty.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let cli: ScreenCli | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  // A failed wait shows only its pattern; the screen says where the CLI stopped.
  if (ctx.task.result?.state === "fail" && cli !== undefined) console.warn(`[chat-pty] the screen when "${ctx.task.name}" failed:\n${cli.screen()}`);
  cli?.kill();
  cli = undefined;
  await world?.cleanup();
  world = undefined;
});

const READY = "● ready";
const QUESTION = "Approve this tool call?";
const call = (id: string, cmd = "echo ran-$((40+2))") => ({ toolCalls: [{ name: "exec_command", id, arguments: { cmd, description: "run it" } }] });
/** The text after the last status line: the editor. */
const editorText = (screen: string): string => screen.split(READY).pop() ?? "";

describe("penguin chat in a terminal", () => {
  it("asks before each tool call: y approves and runs it, n denies it", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [call("call_tty001"), { text: "after yes" }, call("call_tty002"), { text: "after no" }] });
    cli = spawnScreen(["chat", "--approve", "always-ask", "--workspace", world.workspace], world.env);
    await cli.waitFor(READY);

    cli.write("first task\r");
    await cli.waitFor(QUESTION);
    expect(cli.screen()).toContain("[tool-001] exec_command <- $ echo ran-$((40+2))");
    cli.write("y");
    await cli.waitFor(/after yes[\s\S]*\[stats\]/);
    const first = cli.all();
    expect(first).toMatch(/✓ \[tool-001\] exec_command <- \$ echo ran-\$\(\(40\+2\)\) · exit 0/);
    expect(first).toContain("✓ [approved]");
    expect(first).toMatch(/│ ran-42/);

    cli.write("second task\r");
    await cli.waitFor(/second task[\s\S]*Approve this tool call\?/);
    cli.write("n");
    await cli.waitFor(/after no[\s\S]*\[stats\]/);
    expect(cli.all()).toContain("✗ [denied]");

    cli.write("/exit\r");
    await cli.waitFor(/penguin chat --resume session-[\w-]+/);
    expect((await cli.exit).exitCode).toBe(0);
    const outputs = world.kit.requests[3]!.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "");
    expect(outputs[0]).toContain("ran-42");
    expect(outputs[1]).toContain("denied");
  });

  it("Ctrl-C at an approval question denies the call and the task goes on", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [call("call_tty003"), { text: "carried on" }] });
    cli = spawnScreen(["chat", "--approve", "always-ask", "--workspace", world.workspace], world.env);
    await cli.waitFor(READY);
    cli.write("do it\r");
    await cli.waitFor(QUESTION);
    cli.write("\x03");
    // Up to the ready status after the task's stats line: the task has ended there.
    await cli.waitFor(/✗ \[denied\][\s\S]*carried on[\s\S]*\[stats\][\s\S]*● ready/);
    expect(cli.all()).not.toContain("[aborted] aborted by user");
    // The refused call is shown as denied, its output the denial, not labelled as an aborted one.
    expect(cli.all()).toMatch(/✗ \[tool-003\] exec_command <- \$ echo ran-\$\(\(40\+2\)\) · denied/);
    expect(cli.all()).toMatch(/│ Tool call denied by user\.\s*\n/);
    expect(cli.all()).not.toMatch(/\[tool-003\][^\n]*aborted/);
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
  });

  it("Ctrl-C aborts a hung task, the chat continues, and Ctrl-C twice at an empty prompt exits", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "starting and then silence", chunkSize: 4, fault: { kind: "hang", afterEvents: 3 } }, { text: "recovered" }] });
    cli = spawnScreen(["chat", "--workspace", world.workspace], world.env);
    await cli.waitFor(READY);
    cli.write("hang please\r");
    await world.kit.waitForRequests(1);
    await cli.waitFor("star");
    cli.write("\x03");
    await cli.waitFor(/\[aborted\] aborted by user[\s\S]*\[stats\][\s\S]*● ready/);

    cli.write("try again\r");
    await cli.waitFor(/recovered[\s\S]*\[stats\][\s\S]*● ready/);
    const retry = world.kit.requests[1]!.messages.map((m) => m.text ?? "").join("\n");
    expect(retry).toContain("hang please");
    expect(retry).toContain("try again");

    cli.write("half typed");
    await cli.waitFor((s) => editorText(s).includes("half typed"), "the half-typed line");
    // The first Ctrl-C clears the line, the second asks, the third exits.
    cli.write("\x03");
    await cli.waitFor((s) => !editorText(s).includes("half typed"), "the line cleared");
    cli.write("\x03");
    await cli.waitFor("(press Ctrl-C again to exit");
    cli.write("\x03");
    const { exitCode } = await cli.exit;
    expect(exitCode).toBe(0);
    expect(cli.all()).toMatch(/penguin chat --resume session-[\w-]+\s*$/);
    expect(world.kit.requests).toHaveLength(2);
  });

  it("typing while a task runs steers it: the text reaches the model at the next turn, and a command waits for the end", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [call("call_tty004", "while [ ! -f go ]; do sleep 0.02; done; echo went"), { text: "steered" }] });
    cli = spawnScreen(["chat", "--approve", "allow-all", "--workspace", world.workspace], world.env);
    await cli.waitFor(READY);
    cli.write("wait for go\r");
    await cli.waitFor("[tool-004] exec_command");
    cli.write("also check the logs\r");
    await cli.waitFor("[steer] queued for the next turn: also check the logs");
    // A command typed while the task runs is not steering: it waits, and runs when the task ends.
    cli.write("/exit\r");
    await cli.waitFor("(/exit runs when the task ends; Esc interrupts the task)");
    writeFileSync(join(world.workspace, "go"), "");
    await cli.waitFor(/steered[\s\S]*\[stats\]/);
    const second = world.kit.requests[1]!.messages.map((m) => m.text ?? "").join("\n");
    expect(second).toContain("[user_steering]");
    expect(second).toContain("also check the logs");
    expect(second).not.toContain("/exit");
    expect((await cli.exit).exitCode).toBe(0);
    expect(world.kit.requests).toHaveLength(2);
  });

  it("renders markdown with colours on a colour terminal", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "Some **bold** words.\n\n- one\n- two\n\n```ts\nconst x = \"s\";\n```\n" }] });
    const { NO_COLOR: _drop, ...env } = world.env;
    cli = spawnScreen(["chat", "--workspace", world.workspace], { ...env, TERM: "xterm-256color", FORCE_COLOR: "1" });
    await cli.waitFor(READY);
    cli.write("format it\r");
    await cli.waitFor(/\[stats\]/);
    const raw = cli.raw();
    expect(raw).toMatch(/\u001b\[1mbold\u001b\[22m/);
    // The code block is highlighted: the keyword and the string have their colours.
    expect(raw).toMatch(/\u001b\[35mconst\u001b\[39m/);
    expect(raw).toMatch(/\u001b\[32m"s"\u001b\[39m/);
    expect(cli.all()).not.toContain("**bold**");
    expect(cli.all()).toMatch(/- one\s+- two/);
    cli.save("markdown-colours");
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
  });
});
