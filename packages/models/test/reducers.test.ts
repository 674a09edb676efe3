// Stream shapes the recordings do not cover, written by hand from the providers' documented
// formats and fed through the full gateway (an in-process body, so each event is exact).
import { describe, expect, it } from "vitest";
import type { ModelPayload } from "@penguin/omnimessage";
import type { ClientType } from "../src/index.js";
import { parseJsonPath } from "../src/protocols/gemini.js";
import { completes, endpointFor, piecesFetch, request, run } from "./helpers/replay.js";
import { expectWellFormed } from "./helpers/invariants.js";

async function replay(clientType: ClientType, events: unknown[], extra = "") {
  const sse = events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("") + extra;
  const r = await run(request(endpointFor(clientType, "http://127.0.0.1:9"), { fetch: piecesFetch(new TextEncoder().encode(sse), []) }));
  expectWellFormed(r.items, r.outcome);
  return { ...r, done: completes(r.items) };
}

const strip = (ps: ModelPayload[]) =>
  ps.map((p) => {
    const copy: Record<string, unknown> = { ...p };
    delete copy.role;
    delete copy.stop_reason;
    return copy;
  });

describe("openai-chat", () => {
  const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) => ({ choices: [{ index: 0, delta, finish_reason: finish }], ...extra });

  it("OpenRouter's `reasoning` field, a server reusing index 0 for a new call, a call without an id", async () => {
    const { done, outcome } = await replay("openai-chat", [
      chunk({ reasoning: "think" }),
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "one", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "two", arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: "three", arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ]);
    expect(outcome).toMatchObject({ status: "completed", finish: "tool_use" });
    expect(done[0]).toMatchObject({ type: "thinking", thinking: "think", fidelity: { reasoning_field: "reasoning" } });
    expect(done.slice(1).map((p) => (p.type === "tool_call" ? [p.name, p.arguments] : []))).toEqual([
      ["one", "{}"],
      ["two", '{"x":1}'],
      ["three", "{}"],
    ]);
    const third = done[3];
    expect(third?.type === "tool_call" ? third.tool_call_id : "").toMatch(/^call_[0-9a-f]{24}$/);
  });

  it("a body that ends after the finish chunk is complete; one that ends before is malformed", async () => {
    expect((await replay("openai-chat", [chunk({ content: "hi" }, "stop")])).outcome.status).toBe("completed");
    expect((await replay("openai-chat", [chunk({ content: "hi" })])).outcome).toMatchObject({
      status: "malformed",
      errorMessage: "test/test-model: HTTP 200, stream ended without [DONE] or a finish_reason",
    });
  });
});

describe("openai-responses", () => {
  it("joins summary parts with a blank line, keeps a message's phase, and maps response.incomplete", async () => {
    const { done, outcome } = await replay("openai-responses", [
      { type: "response.output_item.added", output_index: 0, item: { id: "rs_1", type: "reasoning" } },
      { type: "response.reasoning_summary_part.added", item_id: "rs_1", summary_index: 0 },
      { type: "response.reasoning_summary_text.delta", item_id: "rs_1", summary_index: 0, delta: "First." },
      { type: "response.reasoning_summary_part.added", item_id: "rs_1", summary_index: 1 },
      { type: "response.reasoning_summary_text.delta", item_id: "rs_1", summary_index: 1, delta: "Second." },
      { type: "response.output_item.done", output_index: 0, item: { id: "rs_1", type: "reasoning", encrypted_content: "E", summary: [] } },
      { type: "response.output_item.added", output_index: 1, item: { id: "msg_1", type: "message", role: "assistant", content: [] } },
      { type: "response.output_text.delta", item_id: "msg_1", delta: "Partial ans" },
      { type: "response.output_item.done", output_index: 1, item: { id: "msg_1", type: "message", phase: "commentary", content: [] } },
      { type: "response.incomplete", response: { incomplete_details: { reason: "max_output_tokens" }, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 7 } } },
    ]);
    expect(outcome).toMatchObject({ status: "completed", finish: "max_tokens", usage: { cache_read: 4, cache_write: 6, output: 7, total: 17 } });
    expect(strip(done)).toEqual([
      { type: "thinking", thinking: "First.\n\nSecond.", fidelity: { reasoning_item: '{"id":"rs_1","type":"reasoning","encrypted_content":"E","summary":[]}' } },
      { type: "text", text: "Partial ans", fidelity: { item_id: "msg_1", phase: "commentary" } },
    ]);
  });

  it("a stream that ends without response.completed is malformed", async () => {
    const { outcome } = await replay("openai-responses", [{ type: "response.output_text.delta", item_id: "m", delta: "x" }]);
    expect(outcome.status).toBe("malformed");
  });
});

describe("anthropic-messages", () => {
  it("concatenates signature deltas and uses a tool's start input when no delta comes", async () => {
    const { done } = await replay("anthropic-messages", [
      { type: "message_start", message: { usage: { input_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "t" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "AB" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "CD" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t1", name: "x", input: { k: 1 } } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 4 } },
      { type: "message_stop" },
    ]);
    expect(strip(done)).toEqual([
      { type: "thinking", thinking: "t", fidelity: { signature: "ABCD" } },
      { type: "tool_call", name: "x", arguments: '{"k":1}', tool_call_id: "t1" },
    ]);
  });
});

describe("gemini", () => {
  it("a signed thought, streamed arguments of every value type at nested paths", async () => {
    const { done, outcome } = await replay("gemini", [
      { candidates: [{ content: { parts: [{ text: "plan", thought: true, thoughtSignature: "TS1" }] } }] },
      { candidates: [{ content: { parts: [{ functionCall: { name: "f", willContinue: true } }] } }] },
      {
        candidates: [
          {
            content: {
              parts: [
                {
                  functionCall: {
                    partialArgs: [
                      { jsonPath: "$.a.b[1]", numberValue: 2 },
                      { jsonPath: "$.a.ok", boolValue: true },
                      { jsonPath: "$['odd key']", stringValue: "he", willContinue: true },
                    ],
                    willContinue: true,
                  },
                },
              ],
            },
          },
        ],
      },
      { candidates: [{ content: { parts: [{ functionCall: { partialArgs: [{ jsonPath: "$['odd key']", stringValue: "llo" }, { jsonPath: "$.n", nullValue: "NULL_VALUE" }], willContinue: true } }] } }] },
      { candidates: [{ content: { parts: [{ functionCall: {} }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 10, cachedContentTokenCount: 4, candidatesTokenCount: 3, thoughtsTokenCount: 2 } },
    ]);
    expect(outcome).toMatchObject({ status: "completed", finish: "tool_use", usage: { cache_read: 4, cache_write: 6, output: 5, total: 15 } });
    expect(done[0]).toMatchObject({ type: "thinking", thinking: "plan", fidelity: { thoughtSignature: "TS1" } });
    const call = done[1];
    expect(call?.type).toBe("tool_call");
    if (call?.type === "tool_call") expect(JSON.parse(call.arguments)).toEqual({ a: { b: [null, 2], ok: true }, "odd key": "hello", n: null });
  });

  it("MALFORMED_FUNCTION_CALL is malformed; a blocked prompt is a clean refusal; an error chunk fails", async () => {
    expect((await replay("gemini", [{ candidates: [{ finishReason: "MALFORMED_FUNCTION_CALL" }] }])).outcome.status).toBe("malformed");
    expect((await replay("gemini", [{ promptFeedback: { blockReason: "SAFETY" } }])).outcome).toMatchObject({ status: "completed", finish: "refusal" });
    expect((await replay("gemini", [{ error: { code: 503, message: "overloaded", status: "UNAVAILABLE" } }])).outcome).toMatchObject({ status: "failed" });
    expect((await replay("gemini", [{ candidates: [{ content: { parts: [{ text: "x" }] } }] }])).outcome.status).toBe("malformed");
  });

  it("reads JSON paths", () => {
    expect(parseJsonPath("$.a.b[0]['c d'][\"e\"]")).toEqual(["a", "b", 0, "c d", "e"]);
    expect(parseJsonPath("a.b")).toBeUndefined();
    expect(parseJsonPath("$.")).toBeUndefined();
  });
});
