// The pairing check: as a pure function over normalised messages, and as the server runs it
// on every request of every protocol (violation recorded, loud 400, no step consumed).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPairing, startTestkit, WIRE_PROTOCOLS, type NormalizedMessage, type Testkit } from "../src/index.js";
import { multiTurnRequest, post } from "./helpers/requests.js";

const user = (text: string): NormalizedMessage => ({ role: "user", kind: "text", text });
const call = (name: string, toolCallId?: string): NormalizedMessage => ({ role: "assistant", kind: "tool_call", name, arguments: "{}", ...(toolCallId ? { toolCallId } : {}) });
const result = (toolCallId?: string, name?: string): NormalizedMessage => ({ role: "tool", kind: "tool_result", text: "ok", ...(toolCallId ? { toolCallId } : {}), ...(name ? { name } : {}) });

describe("checkPairing", () => {
  it("passes calls answered once each, in any order", () => {
    expect(checkPairing([user("go"), call("a", "1"), call("b", "2"), result("2"), result("1"), user("next")])).toEqual([]);
  });

  it("catches an orphan tool result", () => {
    const problems = checkPairing([user("go"), result("ghost")]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/"ghost".*follows no call/);
  });

  it("catches a result that comes before its call", () => {
    expect(checkPairing([result("1"), call("a", "1")]).join()).toMatch(/follows no call[\s\S]*"1".*has no result/);
  });

  it("catches a call without a result", () => {
    expect(checkPairing([user("go"), call("a", "1"), call("b", "2"), result("1")])).toEqual([expect.stringMatching(/"2" \(b, message #2\) has no result/)]);
  });

  it("catches a call answered twice", () => {
    expect(checkPairing([call("a", "1"), result("1"), result("1")])).toEqual([expect.stringMatching(/more than one result/)]);
  });

  it("matches id-less (gemini) results to the model turn before them by name, in any order", () => {
    expect(checkPairing([user("go"), call("read"), call("list"), result(undefined, "list"), result(undefined, "read"), user("more")])).toEqual([]);
  });

  it("catches a gemini count mismatch", () => {
    const problems = checkPairing([user("go"), call("read"), call("read"), result(undefined, "read"), call("x"), result(undefined, "x")]);
    expect(problems.some((p) => /makes 2 call\(s\).*answers 1/.test(p))).toBe(true);
    expect(problems.some((p) => /"read" of the model turn at message #1 has no result/.test(p))).toBe(true);
  });

  it("catches gemini results that answer a later turn or no call of that name", () => {
    expect(checkPairing([user("go"), call("read"), user("interrupt"), call("x"), result(undefined, "read")]).length).toBeGreaterThan(0);
    expect(checkPairing([call("read"), result(undefined, "write")]).join()).toMatch(/"write".*answers no call/);
  });
});

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("pairing check on every request", () => {
  it.each(WIRE_PROTOCOLS)("%s: a well-formed multi-turn request passes and is normalised", async (protocol) => {
    kit.enqueue({ text: "fine" });
    const res = await post(kit, protocol, multiTurnRequest(protocol));
    expect(res.status).toBe(200);
    await res.text();
    expect(kit.violations).toEqual([]);
    const recorded = kit.requests[0]!;
    expect(recorded.system).toBe("Be brief.");
    const kinds = recorded.messages.map((m) => `${m.role}:${m.kind}`);
    expect(kinds).toEqual([
      "user:text",
      "assistant:thinking",
      "assistant:text",
      "assistant:tool_call",
      "assistant:tool_call",
      "tool:tool_result",
      "tool:tool_result",
      "assistant:text",
      "user:text",
    ]);
    expect(JSON.parse(recorded.messages[3]!.arguments!)).toEqual({ path: "a" });
    expect(recorded.toolNames).toContain("read");
  });

  it("openai-chat: an orphan tool result is a violation and a loud 400", async () => {
    kit.enqueue({ text: "never sent" });
    const body: any = multiTurnRequest("openai-chat");
    body.messages.push({ role: "tool", tool_call_id: "call_ghost", content: "?" });
    const res = await post(kit, "openai-chat", body);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/^testkit pairing check: .*"call_ghost"/);
    expect(kit.violations).toEqual([{ requestIndex: 0, message: expect.stringMatching(/^testkit pairing check:/) }]);
    expect(kit.pending()).toBe(1);
  });

  it("anthropic-messages: a tool_use without a tool_result is a violation", async () => {
    const res = await post(kit, "anthropic-messages", {
      model: "m",
      max_tokens: 10,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "ls", input: {} }] },
        { role: "user", content: [{ type: "text", text: "I never ran it" }] },
      ],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/^testkit pairing check: tool call "toolu_1" \(ls/);
    expect(kit.violations).toHaveLength(1);
  });

  it("openai-responses: a function_call_output for an unknown call is a violation", async () => {
    const res = await post(kit, "openai-responses", {
      model: "m",
      input: [{ type: "function_call_output", call_id: "call_x", output: "?" }],
    });
    expect(res.status).toBe(400);
    expect(kit.violations[0]?.message).toMatch(/"call_x"/);
  });

  it("gemini: fewer functionResponse parts than functionCall parts is a violation", async () => {
    const body: any = multiTurnRequest("gemini");
    body.contents[2].parts.pop();
    const res = await post(kit, "gemini", body);
    expect(res.status).toBe(400);
    const error = (await res.json()).error;
    expect(error.status).toBe("INVALID_ARGUMENT");
    expect(error.message).toMatch(/^testkit pairing check: .*makes 2 call\(s\).*answers 1/);
  });
});
