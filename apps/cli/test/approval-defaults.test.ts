// What `penguin run` and `penguin chat` let the model do when no `--approve` is given. On a
// terminal (a real pseudo-terminal) a write is asked first: the question and the write's path
// and size are on the screen while the file does not exist yet; n leaves no file, y writes it.
// Without a terminal (piped) every write is denied, the files stay absent, and stderr carries
// the one how-to-allow line exactly once however many calls were denied (also with --json,
// whose stdout stays pure JSON Lines); `--approve allow-all` writes them. A piped chat denies
// likewise unless --approve chose a mode, and a chat on a terminal asks.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptStep } from "@penguin/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnPty, type PtyCli } from "./helpers/pty.js";
import { spawnScreen, type ScreenCli } from "./helpers/screen-pty.js";
import { runCli } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let cli: PtyCli | undefined;
/** The chat on a terminal is the terminal UI: read from its rendered screen. */
let screen: ScreenCli | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail" && cli !== undefined) console.warn(`[approval-defaults] the screen when "${ctx.task.name}" failed:\n${cli.text().slice(-4000)}`);
  if (ctx.task.result?.state === "fail" && screen !== undefined) console.warn(`[approval-defaults] the screen when "${ctx.task.name}" failed:\n${screen.screen()}`);
  cli?.kill();
  cli = undefined;
  screen?.kill();
  screen = undefined;
  await world?.cleanup();
  world = undefined;
});

const QUESTION = "? Approve this tool call? [Y/n]";
const HOW_TO_ALLOW =
  "penguin: denied write_file (no terminal to ask): pass --approve allow-all to let the model write and run commands, or run penguin on a terminal to be asked before each one";
const write = (id: string, file: string, content: string) => ({ name: "write_file", id, arguments: { file_path: file, content } });
/** Three writes over two requests, then the answer. */
const threeWrites: ScriptStep[] = [
  { toolCalls: [write("call_wr0001", "one.txt", "first\n"), write("call_wr0002", "two.txt", "second\n")] },
  { toolCalls: [write("call_wr0003", "three.txt", "third\n")] },
  { text: "wrote them" },
];
const files = (ws: string) => ["one.txt", "two.txt", "three.txt"].map((f) => join(ws, f));
const howToAllowLines = (stderr: string) => stderr.split("\n").filter((l) => l.includes("no terminal to ask"));

describe("penguin run with no --approve", { timeout: 60_000 }, () => {
  it("on a terminal asks before a write, showing the path and size: n leaves no file, y writes it", async () => {
    world = await startWorld({ script: [{ toolCalls: [write("call_tty001", "no.txt", "not wanted\n"), write("call_tty002", "yes.txt", "wanted\ntoo\n")] }, { text: "asked twice" }] });
    const ws = world.workspace;
    cli = spawnPty(["run", "-m", "write two files", "--workspace", ws], world.env);
    await cli.waitFor(QUESTION);
    expect(cli.text()).toContain("write_file <- no.txt");
    expect(cli.text()).toContain("writes 11 bytes, 1 line to no.txt");
    expect(existsSync(join(ws, "no.txt"))).toBe(false);
    cli.mark();
    cli.write("n\r");
    await cli.waitFor(QUESTION);
    expect(cli.text()).toContain("writes 11 bytes, 2 lines to yes.txt");
    expect(existsSync(join(ws, "yes.txt"))).toBe(false);
    cli.write("y\r");
    const { exitCode } = await cli.exit;
    expect(exitCode).toBe(0);
    expect(cli.text()).toContain("✗ [denied]");
    expect(cli.text()).toContain("✓ [approved]");
    expect(cli.text()).toContain("asked twice");
    expect(cli.text()).not.toContain("no terminal to ask");
    expect(existsSync(join(ws, "no.txt"))).toBe(false);
    expect(readFileSync(join(ws, "yes.txt"), "utf8")).toBe("wanted\ntoo\n");
  });

  it("without a terminal denies every write, and says once on stderr how to allow them", async () => {
    world = await startWorld({ script: threeWrites });
    const r = await runCli(["run", "-m", "write three files", "--workspace", world.workspace], { env: world.env });
    expect(r.code, r.stderr).toBe(0);
    for (const f of files(world.workspace)) expect(existsSync(f), f).toBe(false);
    expect(howToAllowLines(r.stderr)).toEqual([HOW_TO_ALLOW]);
    expect(r.stderr.match(/✗ \[denied\]/g)).toHaveLength(3);
    expect(r.stderr).not.toContain(QUESTION);
    expect(r.stdout).toBe("wrote them\n");
    const outputs = world.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "");
    expect(outputs.join("\n")).toContain("denied");
  });

  it("with --json, stdout stays JSON Lines and the how-to-allow line goes to stderr once", async () => {
    world = await startWorld({ script: threeWrites });
    const r = await runCli(["run", "--json", "-m", "write three files", "--workspace", world.workspace], { env: world.env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(r.stdout).not.toContain("no terminal to ask");
    expect(howToAllowLines(r.stderr)).toEqual([HOW_TO_ALLOW]);
    for (const f of files(world.workspace)) expect(existsSync(f), f).toBe(false);
  });

  it("with --approve allow-all writes them, and says nothing about allowing", async () => {
    world = await startWorld({ script: threeWrites });
    const r = await runCli(["run", "--approve", "allow-all", "-m", "write three files", "--workspace", world.workspace], { env: world.env });
    expect(r.code, r.stderr).toBe(0);
    expect(files(world.workspace).map((f) => readFileSync(f, "utf8"))).toEqual(["first\n", "second\n", "third\n"]);
    expect(howToAllowLines(r.stderr)).toEqual([]);
  });

  it("a read-only tool still runs without a terminal", async () => {
    world = await startWorld({ script: [{ toolCalls: [{ name: "read_file", id: "call_rd0001", arguments: { file_path: "seen.txt" } }] }, { text: "read it" }] });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(world.workspace, "seen.txt"), "readable-canary\n");
    const r = await runCli(["run", "-m", "read", "--workspace", world.workspace], { env: world.env });
    expect(r.code, r.stderr).toBe(0);
    expect(howToAllowLines(r.stderr)).toEqual([]);
    const outputs = world.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "");
    expect(outputs.join("\n")).toContain("readable-canary");
  });
});

describe("penguin chat with no --approve", { timeout: 60_000 }, () => {
  it("piped: denies the writes, says once how to allow them, and asks no question", async () => {
    world = await startWorld({ script: threeWrites });
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "write three files\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("approvals read-only (no terminal: writes and commands denied)");
    expect(r.stdout).not.toContain(QUESTION);
    for (const f of files(world.workspace)) expect(existsSync(f), f).toBe(false);
    expect(howToAllowLines(r.stderr)).toEqual([HOW_TO_ALLOW]);
  });

  it("piped with --approve read-only: the next input line answers, as before", async () => {
    world = await startWorld({ script: [{ toolCalls: [write("call_pip001", "asked.txt", "ok\n")] }, { text: "done" }] });
    const r = await runCli(["chat", "--approve", "read-only", "--workspace", world.workspace], { env: world.env, input: "write it\ny\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`write_file <- asked.txt\n  writes 3 bytes, 1 line to asked.txt\n${QUESTION} y\n✓ [approved]`);
    expect(readFileSync(join(world.workspace, "asked.txt"), "utf8")).toBe("ok\n");
    expect(howToAllowLines(r.stderr)).toEqual([]);
  });

  it("on a terminal asks before a write; n leaves no file", async () => {
    world = await startWorld({ script: [{ toolCalls: [write("call_cht001", "chat.txt", "from chat\n")] }, { text: "chat asked" }] });
    screen = spawnScreen(["chat", "--workspace", world.workspace], world.env);
    await screen.waitFor("approvals read-only");
    await screen.waitFor("● ready");
    expect(screen.all()).not.toContain("no terminal");
    screen.write("write it\r");
    await screen.waitFor("Approve this tool call?");
    expect(screen.screen()).toContain("writes 10 bytes, 1 line to chat.txt");
    expect(existsSync(join(world.workspace, "chat.txt"))).toBe(false);
    screen.write("n");
    await screen.waitFor(/chat asked[\s\S]*\[stats\]/);
    expect(screen.all()).toContain("✗ [denied]");
    expect(existsSync(join(world.workspace, "chat.txt"))).toBe(false);
    screen.write("/exit\r");
    expect((await screen.exit).exitCode).toBe(0);
  });
});
