// `penguin run` end to end: the built CLI as a child process against the testkit model,
// with a temp data root and workspace. Checks the human output split (answer on stdout,
// the rest on stderr), what reached the model, and the trace left behind.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli, waitForOutput } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("penguin run", { timeout: 60_000 }, () => {
  it("keeps stdout to the final answer: text written on the way to a tool call goes to stderr", async () => {
    world = await startWorld({
      script: [
        { text: "Let me look first.", toolCalls: [{ name: "exec_command", id: "call_nar001", arguments: { cmd: "printf 'seen\\n'", description: "look" } }] },
        { text: "The answer, after looking." },
      ],
    });
    const r = await runCli(["run", "--approve", "allow-all", "-m", "look, then answer", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The answer, after looking.\n");
    expect(r.stderr).toContain("Let me look first.");
  });

  it("streams the answer to stdout and thinking, tool lines and stats to stderr, then exits 0", async () => {
    world = await startWorld({
      script: [
        { thinking: "I will look.", toolCalls: [{ name: "exec_command", id: "call_abc123", arguments: { cmd: "printf 'tool-says-hi\\n'", description: "say hi" } }] },
        { text: "All done: tool-says-hi." },
      ],
    });
    const r = await runCli(["run", "--approve", "allow-all", "-m", "say hi", "--workspace", world.workspace], { env: world.env });

    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("All done: tool-says-hi.\n");
    expect(r.stderr).toContain("[thinking] I will look.");
    expect(r.stderr).toContain("[tool-123] exec_command <- $ printf 'tool-says-hi\\n'");
    expect(r.stderr).toMatch(/\[tool-123\] -> tool-says-hi/);
    expect(r.stderr).toMatch(/\[stats\] context [\d.k]+\/128k \(\d+%\) · tokens [\d.k]+ in \([\d.k]+ cached\) \/ [\d.k]+ out · \$\d+\.\d+ · \d+\.\ds/);
    expect(r.stdout + r.stderr).not.toMatch(/\u001b\[/);

    const first = world.kit.requests[0]!;
    expect(first.messages).toContainEqual(expect.objectContaining({ role: "user", kind: "text", text: "say hi" }));
    const second = world.kit.requests[1]!;
    expect(second.messages.some((m) => m.kind === "tool_result" && (m.text ?? "").includes("tool-says-hi"))).toBe(true);

    const trace = traceMessages(world.root, sessionIdFrom(r.stderr));
    expect(trace[0]?.type).toBe("session_meta");
    expect(trace.some((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant")).toBe(true);
  });

  it("names the project instruction files it loaded on stderr with --verbose only", async () => {
    world = await startWorld({ script: [{ text: "one" }, { text: "two" }] });
    writeFileSync(join(world.workspace, "CLAUDE.md"), "RUN-RULE\n");
    const verbose = await runCli(["run", "--verbose", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toContain("instructions loaded: CLAUDE.md\n");
    expect(verbose.stdout).toBe("one\n");
    const quiet = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(quiet.stderr).not.toContain("instructions loaded");
    expect(world.kit.requests[1]?.system).toContain("RUN-RULE");
  });

  it("reads the prompt from stdin with -m -", async () => {
    world = await startWorld({ script: [{ text: "got it" }] });
    const r = await runCli(["run", "-m", "-", "--workspace", world.workspace], { env: world.env, input: "a prompt\nfrom a pipe\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("got it\n");
    expect(world.kit.requests[0]!.messages).toContainEqual(expect.objectContaining({ role: "user", text: "a prompt\nfrom a pipe\n" }));
  });

  it("uses the current directory as the workspace by default", async () => {
    world = await startWorld({ script: [{ text: "ok" }] });
    const r = await runCli(["run", "-m", "where am I"], { env: world.env, cwd: world.workspace });
    expect(r.code).toBe(0);
    const meta = traceMessages(world.root, sessionIdFrom(r.stderr))[0];
    expect(meta?.type === "session_meta" ? meta.payload.workspace : undefined).toMatch(/penguin-cli-ws-/);
  });

  it("sends the --thinking level with the request (default: medium)", async () => {
    world = await startWorld({ script: [{ text: "a" }, { text: "b" }] });
    expect((await runCli(["run", "-m", "x", "--thinking", "low", "--workspace", world.workspace], { env: world.env })).code).toBe(0);
    expect((await runCli(["run", "-m", "x", "--workspace", world.workspace], { env: world.env })).code).toBe(0);
    expect(world.kit.requests.map((r) => JSON.parse(r.rawBody).reasoning_effort)).toEqual(["low", "medium"]);
  });

  it("runs a model given as an explicit --provider/--model-id pair", async () => {
    world = await startWorld({ script: [{ text: "from the pair" }] });
    const r = await runCli(["run", "-m", "hi", "--provider", "testkit", "--model-id", "scripted-model", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("from the pair\n");
    expect(world.kit.requests[0]!.model).toBe("scripted-model");
  });

  it("denies every tool call with --approve deny-all and says so", async () => {
    world = await startWorld({
      script: [{ toolCalls: [{ name: "exec_command", id: "call_zzz999", arguments: { cmd: "touch should-not-exist", description: "touch" } }] }, { text: "denied, fine" }],
    });
    const r = await runCli(["run", "-m", "touch it", "--approve", "deny-all", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("✗ [denied] [tool-999]");
    const output = world.kit.requests[1]!.messages.find((m) => m.kind === "tool_result");
    expect(output?.text).toContain("denied");
  });

  it("denies always-ask calls when there is no terminal to ask on", async () => {
    world = await startWorld({
      script: [{ toolCalls: [{ name: "exec_command", id: "call_ask001", arguments: { cmd: "echo never", description: "echo" } }] }, { text: "ok" }],
    });
    const r = await runCli(["run", "-m", "x", "--approve", "always-ask", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("✗ [denied] [tool-001]");
    expect(r.stderr).not.toContain("Approve this tool call");
  });

  it("prints a retried request as [retry] retrying in … (attempt n of 6) and still finishes", async () => {
    world = await startWorld({ script: [{ fault: { kind: "http", status: 500 } }, { text: "second time lucky" }] });
    const r = await runCli(["run", "-m", "x", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[retry\] retrying in 2 s \(attempt 2 of 6\): .*HTTP 500/);
    expect(r.stdout).toBe("second time lucky\n");
  });

  it("collapses long tool outputs to the first and last 4 lines unless --verbose", async () => {
    const call = { name: "exec_command", id: "call_seq020", arguments: { cmd: "seq 1 20", description: "count" } };
    world = await startWorld({ script: [{ toolCalls: [call] }, { text: "a" }, { toolCalls: [call] }, { text: "b" }] });
    const short = await runCli(["run", "--approve", "allow-all", "-m", "count", "--workspace", world.workspace], { env: world.env });
    expect(short.stderr).toMatch(/\[tool-020\] -> 1\n\s+2\n\s+3\n\s+4\n\s+… 13 more lines\n\s+18\n\s+19\n\s+20\n/);
    const full = await runCli(["run", "--approve", "allow-all", "-m", "count", "--verbose", "--workspace", world.workspace], { env: world.env });
    expect(full.stderr).not.toContain("more lines");
    expect(full.stderr).toMatch(/\s+10\n\s+11\n/);
  });

  it("prints no ANSI codes when the output is piped, even without NO_COLOR", async () => {
    world = await startWorld({
      script: [{ thinking: "hm", toolCalls: [{ name: "exec_command", id: "call_col001", arguments: { cmd: "printf '\\033[31mred\\033[0m\\n'", description: "color" } }] }, { text: "plain" }],
    });
    const { NO_COLOR: _drop, ...env } = world.env;
    const r = await runCli(["run", "--approve", "allow-all", "-m", "x", "--workspace", world.workspace], { env: { ...env, TERM: "xterm-256color" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[tool-001\] -> red/);
    expect(r.stdout + r.stderr).not.toContain("\u001b");
  });

  it("stops the task, without a crash, when the reader of --json goes away", async () => {
    // A long, paced stream: the CLI keeps writing after the reader is gone, and must notice.
    world = await startWorld({ script: [{ text: "x".repeat(2000), chunkSize: 1, delayMs: 2 }] });
    const child = spawnCli(["run", "--json", "--partials", "-m", "x", "--workspace", world.workspace], { env: world.env });
    const out = collectOutput(child);
    await waitForOutput(child.stdout, (t) => t.includes("partial_text"));
    child.stdout?.destroy();
    const { code } = await exited(child);
    expect(code).toBe(130);
    expect(out.stderr()).not.toMatch(/EPIPE|internal error|at .*\.js:\d+/);
  });
});
