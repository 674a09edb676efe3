// Resume from the trace alone: after a clean end, a torn last line, a malformed middle line
// and a kill -9 during a tool. In every case the next request passes the testkit's pairing
// check and holds every committed turn, and the trace keeps growing in the same file.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_PROTOCOLS } from "@penguin/testkit";
import { allow, collect, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { resultText } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";
import { INTERRUPTED_BY_EXIT } from "@penguin/trace";
import { parseTraceText } from "../../src/trace/reader.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const here = dirname(fileURLToPath(import.meta.url));

async function finishedSession(harness: Harness) {
  const session = await harness.agent.createSession({ workspaceDir: harness.workspace });
  await collect(session.run("first task", { approve: allow }));
  await session.dispose();
  return session;
}

const userTexts = (i: number) => h!.kit.requests[i]!.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text);

describe.each(WIRE_PROTOCOLS)("resume over %s", (protocol) => {
  it("after a clean end: same file, full history, pairing intact", async () => {
    h = await startHarness({ protocol,
      script: [
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "echo one", description: "one" } }] },
        { text: "first done" },
        { text: "second done" },
      ],
    });
    const first = await finishedSession(h);
    const linesBefore = readFileSync(first.tracePath, "utf8").split("\n").length;
    const agent = await createAgent({ root: h.root, env: {} });
    expect(agent.latestSessionId()).toBe(first.id);
    const resumed = await agent.resumeSession({ sessionId: first.id });
    expect(resumed.tracePath).toBe(first.tracePath);
    expect(resumed.workspace).toBe(first.workspace);
    expect(resumed.systemPrompt).toBe(first.systemPrompt);
    expect(resumed.usage).toEqual(first.usage);
    await collect(resumed.run("second task", { approve: allow }));
    const req = h.kit.requests[2]!.messages.filter((m) => m.role !== "system");
    expect(req.map((m) => m.kind)).toEqual(["text", "tool_call", "tool_result", "text", "text"]);
    expect(userTexts(2)).toEqual(["first task", "second task"]);
    expect(h.kit.violations).toEqual([]);
    const trace = traceOf(resumed.tracePath);
    expect(shapeOf(trace).filter((s) => s === "session_meta")).toHaveLength(1);
    expect(readFileSync(resumed.tracePath, "utf8").split("\n").length).toBeGreaterThan(linesBefore);
    await resumed.dispose();
  });

  it("after a torn last line: the tail is ignored and new records start on a fresh line", async () => {
    h = await startHarness({ protocol, script: [{ text: "one" }, { text: "two" }] });
    const first = await finishedSession(h);
    appendFileSync(first.tracePath, '{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"requ');
    const agent = await createAgent({ root: h.root, env: {} });
    const resumed = await agent.resumeSession({ sessionId: first.id });
    await collect(resumed.run("again", { approve: allow }));
    expect(userTexts(1)).toEqual(["first task", "again"]);
    expect(h.kit.violations).toEqual([]);
    const parsed = parseTraceText(readFileSync(resumed.tracePath, "utf8"));
    expect(parsed.skipped).toEqual([expect.objectContaining({ reason: "invalid-json" })]);
    expect(shapeOf(parsed.messages).slice(-2)).toEqual(["request_end:completed", "token_usage"]);
    await resumed.dispose();
  });

  it("after a malformed middle line: the line is skipped, nothing else is lost", async () => {
    h = await startHarness({ protocol, script: [{ text: "one" }, { text: "two" }] });
    const first = await finishedSession(h);
    const lines = readFileSync(first.tracePath, "utf8").split("\n");
    lines.splice(2, 0, "this line was mangled by hand {{{");
    writeFileSync(first.tracePath, lines.join("\n"));
    const agent = await createAgent({ root: h.root, env: {} });
    const resumed = await agent.resumeSession({ sessionId: first.id });
    expect(resumed.history().length).toBe(2);
    await collect(resumed.run("again", { approve: allow }));
    expect(userTexts(1)).toEqual(["first task", "again"]);
    expect(h.kit.violations).toEqual([]);
    await resumed.dispose();
  });

  it("after kill -9 during a tool: the call gets an interrupted output and the session goes on", async () => {
    const marker = `penguin-kill-${process.pid}-${Date.now()}`;
    h = await startHarness({ protocol,
      script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: `touch started.flag; sleep 30 # ${marker}`, description: "long" } }] }, { text: "resumed fine" }],
    });
    const tsx = createRequire(import.meta.url).resolve("tsx");
    const child = spawn(process.execPath, ["--conditions=development", "--import", tsx, join(here, "../fixtures/run-until-tool.ts"), h.root, h.workspace], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("TOOL_STARTED")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`child exited early (${code}): ${out}\n${err}`)));
    });
    // Once the command runs (its flag file exists), kill the harness outright.
    while (!existsSync(join(h.workspace, "started.flag"))) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await new Promise((r) => spawn("pkill", ["-f", marker]).once("exit", r));

    const sessionId = /SESSION (\S+)/.exec(out)![1]!;
    const agent = await createAgent({ root: h.root, env: {} });
    const resumed = await agent.resumeSession({ sessionId });
    expect(resumed.carryOver().map((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" ? m.payload.output : ""))).toEqual([INTERRUPTED_BY_EXIT]);
    await collect(resumed.run("what happened?", { approve: allow }));
    const req = h.kit.requests[1]!.messages.filter((m) => m.role !== "system");
    expect(req.map((m) => m.kind)).toEqual(["text", "tool_call", "tool_result", "text"]);
    expect(resultText(req[2]!.text)).toBe(INTERRUPTED_BY_EXIT);
    expect(h.kit.violations).toEqual([]);
    await resumed.dispose();
  });
});
