// `penguin chat` in a real pseudo-terminal: approvals answered with y and n, Ctrl-C at an
// approval (denies), Ctrl-C during a hung request (aborts the task, the chat goes on),
// Ctrl-C twice at an empty prompt (exits), steering by typing while a task runs, and
// markdown with colours when they are on.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnPty, type PtyCli } from "./helpers/pty.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let cli: PtyCli | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  // A failed wait shows only its pattern; the screen says where the CLI stopped.
  if (ctx.task.result?.state === "fail" && cli !== undefined) console.warn(`[chat-pty] the screen when "${ctx.task.name}" failed:\n${cli.text().slice(-4000)}`);
  cli?.kill();
  cli = undefined;
  await world?.cleanup();
  world = undefined;
});

const PROMPT = "› ";
const QUESTION = "? Approve this tool call? [Y/n]";
const call = (id: string, cmd = "echo ran-$((40+2))") => ({ toolCalls: [{ name: "exec_command", id, arguments: { cmd, description: "run it" } }] });

describe("penguin chat in a terminal", () => {
  it("asks before each tool call: y approves and runs it, n denies it", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [call("call_tty001"), { text: "after yes" }, call("call_tty002"), { text: "after no" }] });
    cli = spawnPty(["chat", "--approve", "always-ask", "--workspace", world.workspace], world.env);
    await cli.waitFor(PROMPT);

    cli.mark();
    cli.write("first task\r");
    await cli.waitFor(QUESTION);
    cli.write("y\r");
    await cli.waitFor(/after yes[\s\S]*\[stats\][^\n]*\n[\s\S]*› /);
    const first = cli.text().slice(cli.mark() - 2000);
    expect(first).toContain("[tool-001] exec_command <- $ echo ran-$((40+2))");
    expect(first).toContain("✓ [approved]");
    expect(first).toMatch(/\[tool-001\] -> ran-42/);

    cli.mark();
    cli.write("second task\r");
    await cli.waitFor(QUESTION);
    cli.write("n\r");
    await cli.waitFor(/after no[\s\S]*\[stats\]/);
    expect(cli.text()).toContain("✗ [denied]");

    cli.mark();
    cli.write("/exit\r");
    await cli.waitFor(/penguin chat --resume session-[\w-]+/);
    expect((await cli.exit).exitCode).toBe(0);
    const outputs = world.kit.requests[3]!.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "");
    expect(outputs[0]).toContain("ran-42");
    expect(outputs[1]).toContain("denied");
  });

  it("Ctrl-C at an approval question denies the call and the task goes on", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [call("call_tty003"), { text: "carried on" }] });
    cli = spawnPty(["chat", "--approve", "always-ask", "--workspace", world.workspace], world.env);
    await cli.waitFor(PROMPT);
    cli.mark();
    cli.write("do it\r");
    await cli.waitFor(QUESTION);
    cli.write("\x03");
    // Up to the prompt after the task's stats line: the task has ended there.
    await cli.waitFor(/✗ \[denied\][\s\S]*carried on[\s\S]*\[stats\][^\n]*\n[\s\S]*› /);
    expect(cli.text()).not.toContain("[aborted] aborted by user");
    // The refused call's output is not labelled as an aborted one.
    expect(cli.text()).toMatch(/\[tool-003\] -> Tool call denied by user\.\r?\n/);
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
  });

  it("Ctrl-C aborts a hung task, the chat continues, and Ctrl-C twice at an empty prompt exits", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "starting and then silence", chunkSize: 4, fault: { kind: "hang", afterEvents: 3 } }, { text: "recovered" }] });
    cli = spawnPty(["chat", "--workspace", world.workspace], world.env);
    await cli.waitFor(PROMPT);
    cli.mark();
    cli.write("hang please\r");
    await world.kit.waitForRequests(1);
    await cli.waitFor("star");
    cli.write("\x03");
    await cli.waitFor(/\[aborted\] aborted by user[\s\S]*\[stats\][\s\S]*› /);

    cli.mark();
    cli.write("try again\r");
    await cli.waitFor(/recovered[\s\S]*› /);
    const retry = world.kit.requests[1]!.messages.map((m) => m.text ?? "").join("\n");
    expect(retry).toContain("hang please");
    expect(retry).toContain("try again");

    cli.mark();
    cli.write("half typed");
    await cli.waitFor("half typed");
    cli.write("\x03");
    cli.write("\x03");
    await cli.waitFor("(press Ctrl-C again to exit");
    cli.write("\x03");
    const { exitCode } = await cli.exit;
    expect(exitCode).toBe(0);
    expect(cli.text()).toMatch(/penguin chat --resume session-[\w-]+\s*$/);
    expect(world.kit.requests).toHaveLength(2);
  });

  it("typing while a task runs steers it: the text reaches the model at the next turn, and a command waits for the end", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [call("call_tty004", "while [ ! -f go ]; do sleep 0.02; done; echo went"), { text: "steered" }] });
    cli = spawnPty(["chat", "--approve", "allow-all", "--workspace", world.workspace], world.env);
    await cli.waitFor(PROMPT);
    cli.mark();
    cli.write("wait for go\r");
    await cli.waitFor("[tool-004] exec_command");
    cli.write("also check the logs\r");
    await cli.waitFor("[steer] queued for the next turn: also check the logs");
    // A command typed while the task runs is not steering: it waits, and runs when the task ends.
    cli.write("/exit\r");
    await cli.waitFor("(/exit runs when the task ends; Ctrl-C aborts the task)");
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
    world = await startWorld({ script: [{ text: "Some **bold** words.\n\n- one\n- two\n" }] });
    const { NO_COLOR: _drop, ...env } = world.env;
    cli = spawnPty(["chat", "--workspace", world.workspace], { ...env, TERM: "xterm-256color", FORCE_COLOR: "1" });
    await cli.waitFor(PROMPT);
    cli.mark();
    cli.write("format it\r");
    await cli.waitFor(/\[stats\]/);
    const raw = cli.raw();
    expect(raw).toMatch(/\u001b\[1mbold\u001b\[22m/);
    expect(cli.text()).not.toContain("**bold**");
    expect(cli.text()).toMatch(/\* one\s+\* two/);
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
  });
});
