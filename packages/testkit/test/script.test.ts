// The script queue and the request log: steps consumed in order, function steps answering
// from the recorded request, exhaustion made loud, and what a RecordedRequest holds.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestkit, WIRE_PROTOCOLS, type RecordedRequest, type ScriptedTurn, type Testkit } from "../src/index.js";
import { multiTurnRequest, post, simpleRequest } from "./helpers/requests.js";
import { parseSse, payloads } from "./helpers/sse-reader.js";

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit({ script: [{ text: "first" }] });
});
afterEach(async () => {
  await kit.close();
});

describe("script queue", () => {
  it("consumes one step per request, in order", async () => {
    kit.enqueue({ text: "second" }, { text: "third" });
    expect(kit.pending()).toBe(3);
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const events = payloads(parseSse(await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"))).text()));
      texts.push(events.filter((p) => p.delta?.type === "text_delta").map((p) => p.delta.text).join(""));
    }
    expect(texts).toEqual(["first", "second", "third"]);
    expect(kit.pending()).toBe(0);
  });

  it.each(WIRE_PROTOCOLS)("%s: an exhausted script answers 400 and records a violation", async (protocol) => {
    await (await post(kit, protocol, simpleRequest(protocol))).text();
    const res = await post(kit, protocol, simpleRequest(protocol));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.message).toBe("testkit: script exhausted at request #1");
    expect(kit.violations).toEqual([{ requestIndex: 1, message: "testkit: script exhausted at request #1" }]);
  });

  it("function steps answer from the recorded request (echo the last tool output)", async () => {
    const seen: RecordedRequest[] = [];
    const echo = (request: RecordedRequest): ScriptedTurn => {
      seen.push(request);
      const last = request.messages.filter((m) => m.kind === "tool_result").at(-1);
      return { text: `last tool said ${last?.text ?? "nothing"}` };
    };
    await (await post(kit, "openai-chat", simpleRequest("openai-chat"))).text();
    kit.enqueue(echo);
    const body = multiTurnRequest("openai-chat");
    const events = payloads(parseSse(await (await post(kit, "openai-chat", body)).text()));
    expect(events.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("last tool said A");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(kit.requests[1]);
  });

  it("a function step may answer with a fixture, and a throwing one is a loud 500", async () => {
    await (await post(kit, "gemini", simpleRequest("gemini"))).text();
    kit.enqueue(
      () => ({ fixture: "gemini/google-text.chunks.txt" }),
      () => {
        throw new Error("script bug");
      },
    );
    expect(await (await post(kit, "gemini", simpleRequest("gemini"))).text()).toContain("strawberry");
    const res = await post(kit, "gemini", simpleRequest("gemini"));
    expect(res.status).toBe(500);
    expect(kit.violations[0]?.message).toMatch(/request #2 failed: script bug/);
  });

  it("a missing fixture is a loud 500, not a hang", async () => {
    await (await post(kit, "openai-chat", simpleRequest("openai-chat"))).text();
    kit.enqueue({ fixture: "no-such.chunks.txt" });
    expect((await post(kit, "openai-chat", simpleRequest("openai-chat"))).status).toBe(500);
    expect(kit.violations[0]?.message).toMatch(/no-such\.chunks\.txt/);
  });
});

describe("waitForRequests", () => {
  it("resolves once the count is reached, and at once when already reached", async () => {
    kit.enqueue({ text: "second" });
    let resolved = false;
    const waiting = kit.waitForRequests(2).then(() => (resolved = true));
    await (await post(kit, "openai-chat", simpleRequest("openai-chat"))).text();
    expect(resolved).toBe(false);
    await (await post(kit, "openai-chat", simpleRequest("openai-chat"))).text();
    await waiting;
    expect(resolved).toBe(true);
    await kit.waitForRequests(1);
  });

  it("rejects when the testkit closes first", async () => {
    const waiting = kit.waitForRequests(1);
    await kit.close();
    await expect(waiting).rejects.toThrow(/closed with 0 of 1/);
  });
});

describe("recorded requests", () => {
  it("keep the exact bytes, headers, path and the model (from the URL for gemini)", async () => {
    const raw = '{"contents":[{"role":"user","parts":[{"text":"hé 🐧"}]}]}';
    const res = await fetch(`${kit.baseUrl("gemini")}/models/gemini-test:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers: { "x-goog-api-key": "k-123", "content-type": "application/json" },
      body: raw,
    });
    await res.text();
    const recorded = kit.requests[0]!;
    expect(recorded).toMatchObject({ index: 0, protocol: "gemini", method: "POST", rawBody: raw, model: "gemini-test" });
    expect(recorded.path).toBe("/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
    expect(recorded.headers["x-goog-api-key"]).toBe("k-123");
    expect(recorded.body).toEqual(JSON.parse(raw));
    expect(recorded.messages).toEqual([{ role: "user", kind: "text", text: "hé 🐧" }]);
  });

  it("default usage grows with the conversation", async () => {
    kit.enqueue({ text: "first" });
    const usage = async (text: string) => {
      const chunks = payloads(parseSse(await (await post(kit, "openai-chat", simpleRequest("openai-chat", text))).text()));
      return chunks.at(-1)!.usage;
    };
    const short = await usage("hi");
    const long = await usage("hi ".repeat(200));
    expect(short.prompt_tokens).toBe(Math.ceil(kit.requests[0]!.rawBody.length / 4));
    expect(short.completion_tokens).toBe(Math.ceil("first".length / 4));
    expect(short.prompt_tokens_details.cached_tokens).toBe(0);
    expect(long.prompt_tokens).toBeGreaterThan(short.prompt_tokens + 100);
  });
});
