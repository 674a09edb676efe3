// Abort: mid-stream and mid-tool. The run ends with `abort`, nothing is left running, and
// the next run's first request carries exactly the right carry-over.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_PROTOCOLS } from "@penguin/testkit";
import { collect, allow, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { resultText } from "../helpers/harness.js";
import { INTERRUPTED_BY_USER } from "@penguin/trace";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function processesMatching(marker: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out.split("\n").filter((l) => l.includes(marker) && !l.includes("ps -eo"));
}

describe.each(WIRE_PROTOCOLS)("abort over %s", (protocol) => {
  it("mid-stream: the input and a [turn_aborted] note are carried into the next run", async () => {
    h = await startHarness({ protocol,
      script: [{ text: "Here is the start of a long answer that never ends", chunkSize: 4, fault: { kind: "hang", afterEvents: 8 } }, { text: "picked up" }],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const controller = new AbortController();
    const messages = await collect(session.run("write an essay", { approve: allow, signal: controller.signal }), (m) => {
      if (m.type === "model_msg" && m.payload.type === "partial_text" && m.payload.event_type === "delta") controller.abort();
    });
    expect(shapeOf(messages).slice(-2)).toEqual(["request_end:aborted", "abort"]);
    expect(session.carryOver()).toHaveLength(2);

    await collect(session.run("continue", { approve: allow }));
    const texts = h.kit.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.text ?? "");
    expect(texts[0]).toBe("write an essay");
    expect(texts[1]).toMatch(/^\[turn_aborted\]/);
    expect(texts[1]).toContain("Here");
    expect(texts[2]).toBe("continue");
    expect(h.kit.violations).toEqual([]);
    // The aborted window stays in the trace; the carry-over note itself is never traced.
    const trace = traceOf(session.tracePath);
    expect(shapeOf(trace)).toContain("request_end:aborted");
    expect(trace.some((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text.startsWith("[turn_aborted]"))).toBe(false);
    await session.dispose();
  });

  it("mid-tool: the process group is reaped and the call gets an interrupted output", async () => {
    const marker = `penguin-abort-${process.pid}-${Date.now()}`;
    h = await startHarness({ protocol,
      script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep 30 # ${marker}`, description: "wait" } }] }, { text: "ok" }],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const controller = new AbortController();
    const messages = await collect(session.run("wait a while", { approve: allow, signal: controller.signal }), (m) => {
      if (m.type === "model_msg" && m.payload.type === "partial_tool_call_output" && m.payload.event_type === "start") {
        // The tool has started: give bash a moment to spawn, then abort while it runs.
        setTimeout(() => controller.abort(), 200);
      }
    });
    expect(shapeOf(messages).at(-1)).toBe("abort");
    expect(processesMatching(marker)).toEqual([]);

    await collect(session.run("never mind", { approve: allow }));
    const next = h.kit.requests[1]!.messages.filter((m) => m.role !== "system");
    expect(next.map((m) => m.kind)).toEqual(["text", "tool_call", "tool_result", "text"]);
    expect(resultText(next[2]!.text)).toBe(INTERRUPTED_BY_USER);
    expect(next[3]!.text).toBe("never mind");
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });

  it("stops consuming when the host breaks out of the loop", async () => {
    h = await startHarness({ protocol, script: [{ text: "a long answer that goes on", chunkSize: 2, fault: { kind: "hang", afterEvents: 8 } }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    for await (const m of session.run("go", { approve: allow })) {
      if (m.type === "model_msg" && m.payload.type === "partial_text") break;
    }
    expect(session.running).toBe(false);
    expect(shapeOf(traceOf(session.tracePath)).slice(-2)).toEqual(["request_end:aborted", "abort"]);
    await session.dispose();
  });
});
