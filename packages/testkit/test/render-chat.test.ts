// OpenAI Chat Completions rendering: a full scripted turn streams as chunks shaped like the
// recorded OpenAI/DeepSeek streams and parses back to the same thinking, text, calls and usage.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestkit, type Testkit } from "../src/index.js";
import { post, simpleRequest } from "./helpers/requests.js";
import { conformance, fixturePayloads, shapeOf } from "./helpers/shape.js";
import { hasLoneSurrogate, parseSse, payloads } from "./helpers/sse-reader.js";
import { ARGS_A, ARGS_B, FULL_TURN, TEXT, THINKING } from "./helpers/turns.js";

const REFERENCE = shapeOf(fixturePayloads(["openai-chat/deepseek-tool-call.chunks.txt", "openai-chat/issue-15789-step-1.chunks.txt"]));

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("openai-chat stream", () => {
  it("renders thinking, text, two tool calls and usage that parse back", async () => {
    kit.enqueue(FULL_TURN);
    const res = await post(kit, "openai-chat", simpleRequest("openai-chat"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());

    expect(events.every((e) => e.event === undefined)).toBe(true);
    expect(events.at(-1)?.data).toBe("[DONE]");
    expect(events.filter((e) => e.data === "[DONE]")).toHaveLength(1);
    const chunks = payloads(events);
    for (const chunk of chunks) expect(conformance(chunk, REFERENCE)).toEqual([]);

    const deltas = chunks.flatMap((c) => c.choices.map((choice: any) => choice.delta));
    expect(deltas[0]).toEqual({ role: "assistant", content: "" });
    const reasoning = deltas.map((d) => d.reasoning_content ?? "").join("");
    const content = deltas.map((d) => d.content ?? "").join("");
    expect(reasoning).toBe(THINKING);
    expect(content).toBe(TEXT);
    for (const piece of deltas.flatMap((d) => [d.reasoning_content, d.content]).filter((p) => typeof p === "string")) {
      expect(piece.length).toBeLessThanOrEqual(9);
      expect(hasLoneSurrogate(piece)).toBe(false);
    }

    const callDeltas = deltas.flatMap((d) => d.tool_calls ?? []);
    const calls = [0, 1].map((index) => callDeltas.filter((c: any) => c.index === index));
    for (const [index, parts] of calls.entries()) {
      expect(parts[0]).toMatchObject({ index, type: "function", function: { arguments: "" } });
      expect(parts[0].id).toBe(`call_tk0_${index}`);
      for (const later of parts.slice(1)) {
        expect(later.id).toBeUndefined();
        expect(later.function.name).toBeUndefined();
      }
    }
    expect(calls[0]?.[0].function.name).toBe("read");
    expect(calls[1]?.[0].function.name).toBe("grep");
    expect(JSON.parse(calls[0]!.map((c: any) => c.function.arguments).join(""))).toEqual(ARGS_A);
    expect(calls[1]!.map((c: any) => c.function.arguments).join("")).toBe(ARGS_B);

    const finishes = chunks.flatMap((c) => c.choices.map((choice: any) => choice.finish_reason)).filter((f) => f !== null);
    expect(finishes).toEqual(["tool_calls"]);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280, prompt_tokens_details: { cached_tokens: 200 } });
  });

  it("ends a text-only turn with stop and sends no usage chunk unless asked", async () => {
    kit.enqueue({ text: "plain" });
    const { stream_options: _, ...body } = simpleRequest("openai-chat");
    const chunks = payloads(parseSse(await (await post(kit, "openai-chat", body)).text()));
    expect(chunks.every((c) => c.choices.length === 1 && !("usage" in c))).toBe(true);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe("stop");
  });

  it("answers a non-streamed request with one chat.completion body", async () => {
    kit.enqueue(FULL_TURN);
    const res = await post(kit, "openai-chat", simpleRequest("openai-chat", "hi", false));
    const body = await res.json();
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0].message).toMatchObject({ role: "assistant", content: TEXT, reasoning_content: THINKING });
    expect(body.choices[0].message.tool_calls.map((c: any) => c.function.name)).toEqual(["read", "grep"]);
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.usage.prompt_tokens_details.cached_tokens).toBe(200);
  });
});
