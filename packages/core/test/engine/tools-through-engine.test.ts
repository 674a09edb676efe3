// Every builtin tool, driven through the engine by the testkit model: a success, an error,
// truncation with its archive (for tools whose output can outgrow the window), a timeout and
// an abort (truncation is skipped for kill_command and read_image, whose outputs are a
// status line and an image). The model sees exactly what the engine recorded: each case checks the output in
// the stream and the tool result in the next request. Timeouts are fired by an injected
// timer when the tool is visibly running, hung disks are a stalled filesystem seam, and
// nothing waits on the clock.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startTestkit, type ScriptStep, type Testkit } from "@penguin/testkit";
import type { OmniMessage, ToolCallOutputPayload } from "@penguin/omnimessage";
import { allow, collect, resultText, startHarness, type Harness, type HarnessOptions } from "../helpers/harness.js";
import { manualTimeouts, stalledDisk } from "../environment/helpers.js";
import { INTERRUPTED_BY_USER } from "@penguin/trace";

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

vi.setConfig({ testTimeout: 20_000 });

let h: Harness | undefined;
let vision: Testkit | undefined;
afterEach(async () => {
  await h?.cleanup();
  await vision?.close();
  h = undefined;
  vision = undefined;
});

interface Control {
  abort(): void;
  fireTimeout(): void;
}

interface Case {
  tool: string;
  args: Record<string, unknown>;
  setup?: (workspace: string) => void;
  harness?: Partial<HarnessOptions>;
  /** Called for every streamed message; may abort the run or fire the tool's timeout. */
  drive?: (m: OmniMessage, ctl: Control) => void;
  /** Extra steps before the final answer (e.g. a background command to poll). */
  before?: ScriptStep[];
}

interface Result {
  output: ToolCallOutputPayload;
  /** The tool's result as the next request carried it to the model. */
  seen: string;
  workspace: string;
}

const outputOf = (ms: OmniMessage[], id?: string): ToolCallOutputPayload[] =>
  ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" && (id === undefined || m.payload.tool_call_id === id) ? [m.payload] : []));

async function run(c: Case): Promise<Result> {
  const timeouts = manualTimeouts();
  const base = c.harness ?? {};
  h = await startHarness({
    ...base,
    script: [...(c.before ?? []), { toolCalls: [{ name: c.tool, arguments: c.args }] }, { text: "noted" }, { text: "after abort" }],
    agentOptions: { ...base.agentOptions, environment: { scheduleTimeout: timeouts.scheduleTimeout, ...base.agentOptions?.environment } },
  });
  c.setup?.(h.workspace);
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  const controller = new AbortController();
  const ctl: Control = { abort: () => controller.abort(), fireTimeout: () => timeouts.fire() };
  const messages = await collect(session.run("use the tool", { approve: allow, signal: controller.signal }), (m) => c.drive?.(m, ctl));
  const aborted = controller.signal.aborted;
  if (aborted) await collect(session.run("go on", { approve: allow }));
  await session.dispose();
  const calls = h.kit.requests.length;
  const next = h.kit.requests[calls - 1]!.messages.filter((m) => m.kind === "tool_result").at(-1);
  const outputs = outputOf(messages);
  const output: ToolCallOutputPayload = aborted
    ? { type: "tool_call_output", role: "user", tool_call_id: "", output: resultText(next?.text) ?? "", stop_reason: "aborted" }
    : outputs.at(-1)!;
  expect(h.kit.violations).toEqual([]);
  return { output, seen: resultText(next?.text) ?? "", workspace: h.workspace };
}

const whenRunning = (act: (ctl: Control) => void) => {
  let done = false;
  return (m: OmniMessage, ctl: Control) => {
    if (!done && m.type === "model_msg" && m.payload.type === "partial_tool_call_output" && m.payload.event_type === "start") {
      done = true;
      setTimeout(() => act(ctl), 150);
    }
  };
};

function expectTruncated(r: Result): void {
  const archive = /saved at (\S+?)\]/.exec(r.output.output)?.[1];
  expect(r.output.output).toMatch(/\[output truncated: showing the first \d+ of \d+ characters/);
  expect(archive).toBeDefined();
  expect(existsSync(archive!)).toBe(true);
  expect(readFileSync(archive!, "utf8").length).toBeGreaterThan(r.output.output.length);
  expect(r.seen).toBe(r.output.output);
}

const bigText = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n") + "\n";
const onStalledRead = { agentOptions: { environment: { fileOperations: stalledDisk("readBytes").operations } } };
const onStalledWrite = { agentOptions: { environment: { fileOperations: stalledDisk("writeAtomic").operations } } };

describe("read_file through the engine", () => {
  const setup = (ws: string) => {
    writeFileSync(join(ws, "notes.txt"), "hello world\n");
    writeFileSync(join(ws, "big.txt"), bigText(4000));
  };
  it("success", async () => {
    const r = await run({ tool: "read_file", args: { file_path: "notes.txt" }, setup });
    expect(r.output.stop_reason).toBe("completed");
    expect(r.seen).toMatch(/1\s+hello world/);
  });
  it("error", async () => {
    const r = await run({ tool: "read_file", args: { file_path: "missing.txt" }, setup });
    expect(r.output.stop_reason).toBe("failed");
    expect(r.seen).toMatch(/missing\.txt/);
  });
  it("truncation", async () => expectTruncated(await run({ tool: "read_file", args: { file_path: "big.txt" }, setup })));
  it("timeout", async () => {
    const r = await run({ tool: "read_file", args: { file_path: "notes.txt" }, setup, harness: onStalledRead, drive: whenRunning((c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "read_file", args: { file_path: "notes.txt" }, setup, harness: onStalledRead, drive: whenRunning((c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

describe("edit_file through the engine", () => {
  const setup = (ws: string) => {
    writeFileSync(join(ws, "notes.txt"), "hello world\n");
    writeFileSync(join(ws, "big.txt"), bigText(3000));
  };
  it("success", async () => {
    const r = await run({ tool: "edit_file", args: { file_path: "notes.txt", old_string: "hello", new_string: "goodbye" }, setup });
    expect(r.output.stop_reason).toBe("completed");
    expect(r.seen).toMatch(/Replaced 1 occurrence/);
    expect(readFileSync(join(r.workspace, "notes.txt"), "utf8")).toBe("goodbye world\n");
  });
  it("error", async () => {
    const r = await run({ tool: "edit_file", args: { file_path: "notes.txt", old_string: "absent", new_string: "x" }, setup });
    expect(r.output.stop_reason).toBe("failed");
  });
  it("truncation", async () => expectTruncated(await run({ tool: "edit_file", args: { file_path: "big.txt", old_string: "x".repeat(40), new_string: "y".repeat(40), replace_all: true }, setup })));
  it("timeout", async () => {
    const r = await run({ tool: "edit_file", args: { file_path: "notes.txt", old_string: "hello", new_string: "x" }, setup, harness: onStalledRead, drive: whenRunning((c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "edit_file", args: { file_path: "notes.txt", old_string: "hello", new_string: "x" }, setup, harness: onStalledRead, drive: whenRunning((c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

describe("write_file through the engine", () => {
  it("success", async () => {
    const r = await run({ tool: "write_file", args: { file_path: "sub/new.txt", content: "fresh\n" } });
    expect(r.seen).toMatch(/^Created/);
    expect(readFileSync(join(r.workspace, "sub/new.txt"), "utf8")).toBe("fresh\n");
  });
  it("error", async () => {
    const r = await run({ tool: "write_file", args: { file_path: "dir", content: "x" }, setup: (ws) => mkdirSync(join(ws, "dir")) });
    expect(r.output.stop_reason).toBe("failed");
  });
  it("truncation", async () => expectTruncated(await run({ tool: "write_file", args: { file_path: "big.txt", content: bigText(2000) } })));
  it("timeout", async () => {
    const r = await run({ tool: "write_file", args: { file_path: "a.txt", content: "a" }, harness: onStalledWrite, drive: whenRunning((c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "write_file", args: { file_path: "a.txt", content: "a" }, harness: onStalledWrite, drive: whenRunning((c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

describe("exec_command through the engine", () => {
  it("success", async () => {
    const r = await run({ tool: "exec_command", args: { cmd: "echo hi-there", description: "say hi" } });
    expect(r.seen).toMatch(/hi-there/);
  });
  it("error", async () => {
    const r = await run({ tool: "exec_command", args: { cmd: "exit 3", description: "fail" } });
    expect(r.output.stop_reason).toBe("failed");
    expect(r.seen).toMatch(/exit code: 3/);
  });
  it("truncation", async () => expectTruncated(await run({ tool: "exec_command", args: { cmd: "seq 1 30000", description: "long" } })));
  it("timeout", async () => {
    const r = await run({ tool: "exec_command", args: { cmd: "echo ready; sleep 30", description: "hang" }, drive: whenRunning((c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "exec_command", args: { cmd: "sleep 30", description: "hang" }, drive: whenRunning((c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

// input_command and kill_command act on a background command the model started first.
const background: ScriptStep = { toolCalls: [{ name: "exec_command", arguments: { cmd: "cat", run_in_background: true, description: "echo server" } }] };
const pid = "p1";

describe("input_command through the engine", () => {
  it("success", async () => {
    const r = await run({ tool: "input_command", args: { process_id: pid, chars: "ping\n", yield_time_ms: 1500, description: "talk" }, before: [background] });
    expect(r.seen).toMatch(/ping/);
  });
  it("error", async () => {
    const r = await run({ tool: "input_command", args: { process_id: "p404", chars: "x", description: "nobody" } });
    expect(r.output.stop_reason).toBe("failed");
  });
  it("truncation", async () => {
    // The output piles up unread while the model does something else, then one poll gets it all.
    const big: ScriptStep = { toolCalls: [{ name: "exec_command", arguments: { cmd: "seq 1 30000; sleep 30", run_in_background: true, description: "loud" } }] };
    const wait: ScriptStep = { toolCalls: [{ name: "exec_command", arguments: { cmd: "sleep 1", description: "meanwhile" } }] };
    expectTruncated(await run({ tool: "input_command", args: { process_id: pid, chars: "", description: "poll" }, before: [big, wait] }));
  });
  it("timeout", async () => {
    const r = await run({ tool: "input_command", args: { process_id: pid, chars: "", yield_time_ms: 60000, description: "wait" }, before: [background], drive: whenRunningTool("input_command", (c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "input_command", args: { process_id: pid, chars: "", yield_time_ms: 60000, description: "wait" }, before: [background], drive: whenRunningTool("input_command", (c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

function whenRunningTool(name: string, act: (ctl: Control) => void) {
  const ids = new Set<string>();
  let done = false;
  return (m: OmniMessage, ctl: Control) => {
    if (m.type === "model_msg" && m.payload.type === "tool_call" && m.payload.name === name) ids.add(m.payload.tool_call_id);
    if (!done && m.type === "model_msg" && m.payload.type === "partial_tool_call_output" && m.payload.event_type === "start" && ids.has(m.payload.tool_call_id)) {
      done = true;
      setTimeout(() => act(ctl), 150);
    }
  };
}

describe("kill_command through the engine", () => {
  // A process that ignores SIGTERM keeps kill_command busy through its grace period.
  const stubborn: ScriptStep = {
    toolCalls: [{ name: "exec_command", arguments: { cmd: `exec node -e "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"`, run_in_background: true, description: "stubborn" } }],
  };
  // Give node time to install its SIGTERM handler before the kill.
  const settle: ScriptStep = { toolCalls: [{ name: "exec_command", arguments: { cmd: "sleep 1", description: "let it start" } }] };
  it("success", async () => {
    const r = await run({ tool: "kill_command", args: { process_id: pid, description: "stop" }, before: [background] });
    expect(r.output.stop_reason).toBe("completed");
    expect(r.seen).toMatch(/p1/);
  });
  it("error", async () => {
    const r = await run({ tool: "kill_command", args: { process_id: "p404", description: "nobody" } });
    expect(r.output.stop_reason).toBe("failed");
  });
  it("timeout", async () => {
    const r = await run({ tool: "kill_command", args: { process_id: pid, description: "stop" }, before: [stubborn, settle], drive: whenRunningTool("kill_command", (c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "kill_command", args: { process_id: pid, description: "stop" }, before: [stubborn, settle], drive: whenRunningTool("kill_command", (c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

describe("read_image through the engine (vision model)", () => {
  const harness = { entry: { vision: true } };
  const setup = (ws: string) => writeFileSync(join(ws, "dot.png"), Buffer.from(PNG_1X1, "base64"));
  it("success: the image reaches the model", async () => {
    const r = await run({ tool: "read_image", args: { source: "dot.png" }, setup, harness });
    expect(r.output.images?.[0]).toMatch(/^data:image\/png;base64,/);
    expect(h!.kit.requests.at(-1)!.messages.some((m) => m.kind === "image" || (m.kind === "tool_result" && (m.text ?? "").includes("image")))).toBe(true);
  });
  it("error", async () => {
    const r = await run({ tool: "read_image", args: { source: "nope.png" }, setup, harness });
    expect(r.output.stop_reason).toBe("failed");
  });
  it("timeout", async () => {
    const r = await run({ tool: "read_image", args: { source: "dot.png" }, setup, harness: { ...harness, ...onStalledRead }, drive: whenRunning((c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "read_image", args: { source: "dot.png" }, setup, harness: { ...harness, ...onStalledRead }, drive: whenRunning((c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});

describe("describe_image through the engine (the project's vision model)", () => {
  const setup = (ws: string) => writeFileSync(join(ws, "dot.png"), Buffer.from(PNG_1X1, "base64"));
  async function withVision(script: ScriptStep[]): Promise<Partial<HarnessOptions>> {
    vision = await startTestkit({ script });
    return {
      extraModels: [{ provider: "vision", model_id: "eyes", client_type: "openai-chat", base_url: vision.baseUrl("openai-chat"), api_key: "sk-vision", vision: true }],
      visionModel: { provider: "vision", model_id: "eyes" },
    };
  }
  it("success: the vision model's answer is the output", async () => {
    const r = await run({ tool: "describe_image", args: { source: "dot.png", prompt: "what colour?" }, setup, harness: await withVision([{ text: "A single red pixel." }]) });
    expect(r.seen).toBe("A single red pixel.");
    const asked = vision!.requests[0]!;
    expect(asked.messages.some((m) => m.kind === "image")).toBe(true);
    expect(asked.messages.some((m) => m.text === "what colour?")).toBe(true);
    expect(asked.headers.authorization).toBe("Bearer sk-vision");
  });
  it("error: the vision model fails", async () => {
    const r = await run({ tool: "describe_image", args: { source: "dot.png" }, setup, harness: await withVision([{ fault: { kind: "http", status: 400, body: "bad image" } }]) });
    expect(r.output.stop_reason).toBe("failed");
    expect(r.seen).toMatch(/vision/);
  });
  it("truncation: a very long description is cut and archived", async () => {
    expectTruncated(await run({ tool: "describe_image", args: { source: "dot.png" }, setup, harness: await withVision([{ text: "pixel ".repeat(5000), chunkSize: 2000 }]) }));
  });
  it("timeout", async () => {
    const r = await run({ tool: "describe_image", args: { source: "dot.png" }, setup, harness: await withVision([{ text: "slow", fault: { kind: "hang", afterEvents: 1 } }]), drive: whenRunning((c) => c.fireTimeout()) });
    expect(r.output.stop_reason).toBe("timeout");
  });
  it("abort", async () => {
    const r = await run({ tool: "describe_image", args: { source: "dot.png" }, setup, harness: await withVision([{ text: "slow", fault: { kind: "hang", afterEvents: 1 } }]), drive: whenRunning((c) => c.abort()) });
    expect(r.seen).toBe(INTERRUPTED_BY_USER);
  });
});
