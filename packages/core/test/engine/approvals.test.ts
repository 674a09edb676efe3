// Approvals: asked once per call in call order; deny and policy vetoes reach the model as
// outputs; the command policy decides before the host is asked, under allow-all too.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_PROTOCOLS } from "@penguin/testkit";
import type { ToolCallPayload } from "@penguin/omnimessage";
import { collect, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { resultText } from "../helpers/harness.js";
import { DENIED_BY_POLICY, DENIED_BY_USER } from "@penguin/trace";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe.each(WIRE_PROTOCOLS)("approvals over %s", (protocol) => {
  it("asks in call order, runs only allowed calls, and feeds denials back", async () => {
    h = await startHarness({ protocol,
      script: [
        {
          toolCalls: [
            { name: "write_file", arguments: { file_path: "a.txt", content: "a" } },
            { name: "write_file", arguments: { file_path: "b.txt", content: "b" } },
          ],
        },
        { text: "ok" },
      ],
    });
    const asked: string[] = [];
    const approve = async (call: ToolCallPayload) => {
      asked.push(call.arguments);
      return call.arguments.includes("b.txt") ? ("deny" as const) : ("allow" as const);
    };
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("write two files", { approve }));
    expect(asked.map((a) => JSON.parse(a).file_path)).toEqual(["a.txt", "b.txt"]);
    expect(existsSync(join(h.workspace, "a.txt"))).toBe(true);
    expect(existsSync(join(h.workspace, "b.txt"))).toBe(false);
    expect(shapeOf(messages)).toContain("approval_decision:deny");
    const results = h.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result").map((m) => resultText(m.text));
    expect(results[1]).toBe(DENIED_BY_USER);
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });

  it("denies every call when no approve function is given", async () => {
    h = await startHarness({ protocol, script: [{ toolCalls: [{ name: "write_file", arguments: { file_path: "x.txt", content: "x" } }] }, { text: "fine" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("try"));
    expect(existsSync(join(h.workspace, "x.txt"))).toBe(false);
    expect(resultText(h.kit.requests[1]!.messages.find((m) => m.kind === "tool_result")?.text)).toBe(DENIED_BY_USER);
    await session.dispose();
  });

  it("treats a throwing approve function as deny", async () => {
    h = await startHarness({ protocol, script: [{ toolCalls: [{ name: "write_file", arguments: { file_path: "y.txt", content: "y" } }] }, { text: "fine" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("try", { approve: async () => { throw new Error("host broke"); } }));
    expect(shapeOf(messages)).toContain("approval_decision:deny");
    expect(existsSync(join(h.workspace, "y.txt"))).toBe(false);
    await session.dispose();
  });

  it("vetoes a factory-rule command as forbidden without asking the host", async () => {
    h = await startHarness({ protocol,
      script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "sudo -- rm -rf ~", description: "clean up" } }] }, { text: "ok" }],
    });
    let asked = 0;
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("clean", { approve: async () => { asked++; return "allow"; } }));
    expect(asked).toBe(0);
    const decision = messages.find((m) => m.type === "event_msg" && m.payload.type === "approval_decision");
    expect(decision?.payload).toMatchObject({ decision: "forbidden", policy_rule: expect.any(String) });
    expect(resultText(h.kit.requests[1]!.messages.find((m) => m.kind === "tool_result")?.text)).toBe(DENIED_BY_POLICY);
    expect(shapeOf(traceOf(session.tracePath))).toContain("approval_decision:forbidden");
    await session.dispose();
  });
});
