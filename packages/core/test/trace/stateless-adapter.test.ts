// The model adapter keeps no history: each request is the session fold's history plus the
// request's input. Given a session whose tool output is long enough for resume to keep as its
// JSON text (decoded only when read, omnimessage raw-output.ts), when the session is resumed
// and runs a task, then its first request carries the whole committed context and building it
// read no output: the fold's payloads still hold theirs undecoded, shared with the request.
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const LONG = 3000;

describe("the model adapter holds no history", () => {
  it("a resumed session's first request is built from the fold's history without decoding its tool outputs", async () => {
    h = await startHarness({
      script: [
        { toolCalls: [{ name: "exec_command", arguments: { cmd: `head -c ${LONG} /dev/zero | tr '\\0' a`, description: "long output" } }] },
        { text: "first done" },
        { text: "second done" },
      ],
    });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("first task", { approve: allow }));
    await first.dispose();

    const agent = await createAgent({ root: h.root, env: {} });
    const resumed = await agent.resumeSession({ sessionId: first.id });
    const outputsOf = () => resumed.state.history.mapToArray((m) => m.payload).filter((p) => p.type === "tool_call_output");
    const kept = outputsOf();
    expect(kept).toHaveLength(1);
    const undecoded = (p: object) => Object.getOwnPropertyDescriptor(p, "output")?.get !== undefined;
    expect(undecoded(kept[0]!)).toBe(true);

    await collect(resumed.run("second task", { approve: allow }));
    const request = h.kit.requests[2]!.messages.filter((m) => m.role !== "system");
    expect(request.map((m) => m.kind)).toEqual(["text", "tool_call", "tool_result", "text", "text"]);
    expect(request[2]!.text).toContain("a".repeat(LONG));
    // The same payload object is still in the fold's context, and the request did not decode it.
    expect(outputsOf()[0]).toBe(kept[0]);
    expect(undecoded(kept[0]!)).toBe(true);
    await resumed.dispose();
  });
});
