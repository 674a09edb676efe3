// `penguin run` on a terminal: `--approve always-ask` asks on the terminal (y runs the
// call, Ctrl-C at the question denies it), and Ctrl-C during a hung request aborts the task
// with exit 130.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnPty, type PtyCli } from "./helpers/pty.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let cli: PtyCli | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  cli?.kill();
  cli = undefined;
  await world?.cleanup();
  world = undefined;
});

const QUESTION = "? Approve this tool call? [Y/n]";
const call = (id: string) => ({ toolCalls: [{ name: "exec_command", id, arguments: { cmd: "echo tty-$((6*7))", description: "echo" } }] });

describe("penguin run in a terminal", () => {
  it("asks approvals on the terminal: y runs the call, Ctrl-C at the question denies it", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ toolCalls: [...call("call_run001").toolCalls, ...call("call_run002").toolCalls] }, { text: "both asked" }] });
    cli = spawnPty(["run", "-m", "two calls", "--approve", "always-ask", "--workspace", world.workspace], world.env);
    await cli.waitFor(QUESTION);
    cli.mark();
    cli.write("y\r");
    await cli.waitFor(QUESTION);
    cli.write("\x03");
    const { exitCode } = await cli.exit;
    expect(exitCode).toBe(0);
    const text = cli.text();
    expect(text).toContain("✓ [approved]");
    expect(text).toMatch(/\[tool-001\] -> tty-42/);
    expect(text).toContain("✗ [denied]");
    expect(text).toContain("both asked");
    const outputs = world.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "");
    expect(outputs[0]).toContain("tty-42");
    expect(outputs[1]).toContain("denied");
  });

  it("Ctrl-C aborts a hung task and exits 130", { timeout: 30_000 }, async () => {
    world = await startWorld({ script: [{ text: "waiting forever", fault: { kind: "hang", afterEvents: 2 } }] });
    cli = spawnPty(["run", "-m", "hang", "--workspace", world.workspace], world.env);
    await world.kit.waitForRequests(1);
    await cli.waitFor("wait");
    cli.write("\x03");
    const { exitCode } = await cli.exit;
    expect(exitCode).toBe(130);
    expect(cli.text()).toContain("[aborted] aborted by user");
  });
});
