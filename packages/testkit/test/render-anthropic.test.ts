// Anthropic Messages rendering: named events shaped like the recorded Anthropic streams;
// thinking with signature, text and tool_use blocks parse back; usage split the Anthropic way.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listFixtures, startTestkit, type Testkit } from "../src/index.js";
import { post, simpleRequest } from "./helpers/requests.js";
import { conformance, fixturePayloads, shapesByType } from "./helpers/shape.js";
import { hasLoneSurrogate, parseSse, payloads } from "./helpers/sse-reader.js";
import { ARGS_A, ARGS_B, FULL_TURN, TEXT, THINKING } from "./helpers/turns.js";

const REFERENCE = shapesByType(fixturePayloads(listFixtures("anthropic-messages")));

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("anthropic-messages stream", () => {
  it("renders thinking, text, two tool calls and usage that parse back", async () => {
    kit.enqueue(FULL_TURN);
    const events = parseSse(await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"))).text());
    const all = payloads(events);

    events.forEach((event, i) => expect(event.event).toBe(all[i]?.type));
    for (const payload of all) {
      const shape = REFERENCE.get(payload.type);
      expect(shape, `a real stream has ${payload.type}`).toBeDefined();
      expect(conformance(payload, shape!)).toEqual([]);
    }
    expect(all[0]?.type).toBe("message_start");
    expect(all.slice(-2).map((p) => p.type)).toEqual(["message_delta", "message_stop"]);

    const blocks = all.filter((p) => p.type === "content_block_start").map((p) => p.content_block);
    expect(blocks.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    const deltas = (index: number) => all.filter((p) => p.type === "content_block_delta" && p.index === index).map((p) => p.delta);
    expect(deltas(0).filter((d) => d.type === "thinking_delta").map((d) => d.thinking).join("")).toBe(THINKING);
    expect(deltas(0).at(-1)).toEqual({ type: "signature_delta", signature: "sig-Zm9vYmFy" });
    expect(deltas(1).map((d) => d.text).join("")).toBe(TEXT);
    for (const d of [...deltas(0), ...deltas(1)]) expect(hasLoneSurrogate(d.thinking ?? d.text ?? "")).toBe(false);
    expect(blocks[2]).toMatchObject({ id: "toolu_tk0_0", name: "read", input: {} });
    expect(blocks[3]).toMatchObject({ id: "toolu_tk0_1", name: "grep" });
    expect(JSON.parse(deltas(2).map((d) => d.partial_json).join(""))).toEqual(ARGS_A);
    expect(deltas(3).map((d) => d.partial_json).join("")).toBe(ARGS_B);
    expect(all.filter((p) => p.type === "content_block_stop").map((p) => p.index)).toEqual([0, 1, 2, 3]);

    const start = all[0]!.message.usage;
    expect(start).toMatchObject({ input_tokens: 1000, cache_read_input_tokens: 200, cache_creation_input_tokens: 0 });
    const end = all.at(-2)!;
    expect(end.delta.stop_reason).toBe("tool_use");
    expect(end.usage).toEqual({ input_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 200, output_tokens: 80 });
  });

  it("uses scripted call ids and ends a text turn with end_turn", async () => {
    kit.enqueue({ text: "ok", toolCalls: [{ name: "ls", arguments: {}, id: "toolu_fixed" }] }, { text: "bye" });
    const first = payloads(parseSse(await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"))).text()));
    expect(first.find((p) => p.content_block?.type === "tool_use")?.content_block.id).toBe("toolu_fixed");
    const second = payloads(parseSse(await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"))).text()));
    expect(second.find((p) => p.type === "message_delta")?.delta.stop_reason).toBe("end_turn");
  });

  it("answers a non-streamed request with one message body", async () => {
    kit.enqueue(FULL_TURN);
    const body = await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages", "hi", false))).json();
    expect(body.content.map((b: any) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(body.content[2].input).toEqual(ARGS_A);
    expect(body.stop_reason).toBe("tool_use");
  });
});
