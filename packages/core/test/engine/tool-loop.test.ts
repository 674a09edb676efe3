// The ReAct loop end to end over real HTTP: the testkit model asks for tools, real tools run
// in a temp workspace, outputs go back in call order, and the trace has the seeds' shape.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_PROTOCOLS } from "@penguin/testkit";
import { allow, collect, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { resultText } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe.each(WIRE_PROTOCOLS)("tool loop over %s", (protocol) => {
  it("runs a tool, feeds its output back, and leaves the seeds' trace shape", async () => {
    h = await startHarness({ protocol,
      script: [
        { toolCalls: [{ name: "write_file", arguments: { file_path: "hello.txt", content: "hi\n" } }], usage: { input: 100, output: 20 } },
        { text: "Created hello.txt.", usage: { input: 150, cached: 100, output: 5 } },
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("create hello.txt", { approve: allow }));

    expect(readFileSync(join(h.workspace, "hello.txt"), "utf8")).toBe("hi\n");
    // The prompt is traced, not echoed: the stream starts with the tool list.
    expect(shapeOf(messages.filter((m) => !(m.type === "model_msg" && m.payload.type.startsWith("partial_"))))).toEqual([
      "tool_list_ready",
      "request_begin",
      "tool_call:assistant",
      "approval_decision:allow",
      ...(shapeOf(messages).indexOf("tool_call_output:user") < shapeOf(messages).indexOf("request_end:completed")
        ? ["tool_call_output:user", "request_end:completed", "token_usage"]
        : ["request_end:completed", "token_usage", "tool_call_output:user"]),
      "request_begin",
      "text:assistant",
      "request_end:completed",
      "token_usage",
    ]);

    const trace = traceOf(session.tracePath);
    const shape = shapeOf(trace);
    // The session's starting settings follow its meta (trace only), then the seeds' shape.
    expect(shape.slice(0, 6)).toEqual(["session_meta", "settings_changed", "tool_list_ready", "request_begin", "text:user", "tool_call:assistant"]);
    expect(trace[1]?.payload).toEqual({ type: "settings_changed", thinking_level: "medium" });
    expect(shape).toContain("approval_decision:allow");
    const first = shape.slice(0, shape.indexOf("token_usage") + 1);
    // The Human was asked (approval_requested, trace only) before the decision was recorded.
    expect(first.filter((s) => s !== "tool_call_output:user")).toEqual(["session_meta", "settings_changed", "tool_list_ready", "request_begin", "text:user", "tool_call:assistant", "approval_requested", "approval_decision:allow", "request_end:completed", "token_usage"]);
    expect(shape.slice(-4)).toEqual(["request_begin", "text:assistant", "request_end:completed", "token_usage"]);
    // Every line is one envelope: {timestamp, type, payload}, ISO timestamps, no partials.
    const lines = readFileSync(session.tracePath, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(trace.length);
    for (const line of lines) {
      const m = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(m).sort()).toEqual(["payload", "timestamp", "type"]);
      expect(new Date(String(m.timestamp)).toISOString()).toBe(m.timestamp);
    }
    expect(trace.some((m) => m.type === "model_msg" && m.payload.type.startsWith("partial_"))).toBe(false);

    // The second request carried the tool output right after its call.
    const second = h.kit.requests[1]!;
    const kinds = second.messages.filter((m) => m.role !== "system").map((m) => m.kind);
    expect(kinds).toEqual(["text", "tool_call", "tool_result"]);
    expect(resultText(second.messages.find((m) => m.kind === "tool_result")?.text)).toMatch(/Created/);
    expect(h.kit.violations).toEqual([]);

    const usage = trace.filter((m) => m.type === "event_msg" && m.payload.type === "token_usage").at(-1);
    expect(usage?.payload).toMatchObject({ session: { total: 275, cache_read: 100 }, request: { cache_read: 100, cache_write: 50, output: 5, total: 155 } });
    expect(session.usage.total).toBe(275);
    await session.dispose();
  });

  it("feeds parallel calls back in call order, whatever order they finish in", async () => {
    h = await startHarness({ protocol,
      script: [
        {
          toolCalls: [
            // The first call cannot finish before the second one's output reached the stream:
            // it waits on a FIFO the test writes only then (an event, not a sleep).
            { name: "exec_command", arguments: { cmd: "cat gate > /dev/null; echo slow-first", description: "slow" } },
            { name: "exec_command", arguments: { cmd: "echo fast-second", description: "fast" } },
          ],
        },
        { text: "both done" },
      ],
    });
    const gate = join(h.workspace, "gate");
    execFileSync("mkfifo", [gate]);
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages: Awaited<ReturnType<typeof collect>> = [];
    for await (const m of session.run("run both", { approve: allow })) {
      messages.push(m);
      if (m.type === "model_msg" && m.payload.type === "tool_call_output" && m.payload.output.includes("fast-second")) void writeFile(gate, "go\n");
    }
    const completions = messages.flatMap((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" ? [m.payload.output] : []));
    expect(completions[0]).toMatch(/fast-second/);
    expect(completions[1]).toMatch(/slow-first/);
    const results = h.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result").map((m) => resultText(m.text) ?? "");
    expect(results[0]).toMatch(/slow-first/);
    expect(results[1]).toMatch(/fast-second/);
    expect(h.kit.violations).toEqual([]);
    expect(existsSync(session.tracePath)).toBe(true);
    await session.dispose();
  });

  it("sends no tools until asked and ends the task on a plain answer", async () => {
    h = await startHarness({ protocol, script: [{ thinking: "easy", text: "4" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("2+2?", { approve: allow }));
    expect(shapeOf(messages.filter((m) => m.type !== "model_msg" || !m.payload.type.startsWith("partial_")))).toEqual([
      "tool_list_ready",
      "request_begin",
      "thinking:assistant",
      "text:assistant",
      "request_end:completed",
      "token_usage",
    ]);
    expect(h.kit.requests).toHaveLength(1);
    expect(h.kit.requests[0]!.toolNames).toEqual(expect.arrayContaining(["exec_command", "write_file"]));
    await session.dispose();
  });
});
