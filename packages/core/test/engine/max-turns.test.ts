// max_turns bounds the requests of one task; unsent tool outputs are carried over.
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_PROTOCOLS } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe.each(WIRE_PROTOCOLS)("max_turns over %s", (protocol) => {
  it("stops after N requests with an abort naming the limit", async () => {
    const call = { toolCalls: [{ name: "exec_command", arguments: { cmd: "echo again", description: "loop" } }] };
    h = await startHarness({ protocol,
      script: [call, call, call, { text: "done" }],
      systemConfigPatch: (yaml) => yaml.replace(/^max_turns:.*$/m, "max_turns: 2"),
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("loop", { approve: allow }));
    expect(h.kit.requests).toHaveLength(2);
    expect(messages.at(-1)?.payload).toEqual({ type: "abort", reason: "reached max turns (2); stopping" });
    expect(session.carryOver().map((m) => m.type === "model_msg" && m.payload.type)).toEqual(["tool_call_output"]);
    await collect(session.run("go on", { approve: allow }));
    expect(h.kit.requests[2]!.messages.filter((m) => m.kind === "tool_result")).toHaveLength(2);
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });
});
