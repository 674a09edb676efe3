// OpenAI Responses rendering: named, numbered events shaped like the recorded Responses
// streams; reasoning (with encrypted_content), message and function_call items parse back.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listFixtures, startTestkit, type Testkit } from "../src/index.js";
import { post, simpleRequest } from "./helpers/requests.js";
import { conformance, fixturePayloads, shapesByType } from "./helpers/shape.js";
import { hasLoneSurrogate, parseSse, payloads } from "./helpers/sse-reader.js";
import { ARGS_A, ARGS_B, FULL_TURN, TEXT, THINKING } from "./helpers/turns.js";

const REFERENCE = shapesByType(fixturePayloads(listFixtures("openai-responses")));

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("openai-responses stream", () => {
  it("renders thinking, text, two tool calls and usage that parse back", async () => {
    kit.enqueue(FULL_TURN);
    const events = parseSse(await (await post(kit, "openai-responses", simpleRequest("openai-responses"))).text());
    const all = payloads(events);

    events.forEach((event, i) => expect(event.event).toBe(all[i]?.type));
    expect(all.map((p) => p.sequence_number)).toEqual(all.map((_, i) => i));
    for (const payload of all) {
      const shape = REFERENCE.get(payload.type);
      expect(shape, `a real stream has ${payload.type}`).toBeDefined();
      expect(conformance(payload, shape!)).toEqual([]);
    }
    expect(all.slice(0, 2).map((p) => p.type)).toEqual(["response.created", "response.in_progress"]);
    expect(all.at(-1)?.type).toBe("response.completed");

    const added = all.filter((p) => p.type === "response.output_item.added").map((p) => p.item);
    expect(added.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    expect(added[0].encrypted_content).toBe("sig-Zm9vYmFy");
    const of = (type: string) => all.filter((p) => p.type === type);
    expect(of("response.reasoning_summary_text.delta").map((p) => p.delta).join("")).toBe(THINKING);
    expect(of("response.output_text.delta").map((p) => p.delta).join("")).toBe(TEXT);
    for (const p of [...of("response.reasoning_summary_text.delta"), ...of("response.output_text.delta")]) {
      expect(hasLoneSurrogate(p.delta)).toBe(false);
    }

    const argsFor = (itemId: string) => of("response.function_call_arguments.delta").filter((p) => p.item_id === itemId).map((p) => p.delta).join("");
    expect(added[2]).toMatchObject({ name: "read", call_id: "call_tk0_0", arguments: "" });
    expect(JSON.parse(argsFor(added[2].id))).toEqual(ARGS_A);
    expect(argsFor(added[3].id)).toBe(ARGS_B);
    expect(of("response.function_call_arguments.done").map((p) => p.arguments)).toEqual([JSON.stringify(ARGS_A), ARGS_B]);

    const done = of("response.output_item.done").map((p) => p.item);
    expect(done[0]).toMatchObject({ type: "reasoning", encrypted_content: "sig-Zm9vYmFy", summary: [{ type: "summary_text", text: THINKING }] });
    const completed = all.at(-1)!.response;
    expect(completed.status).toBe("completed");
    expect(completed.output).toEqual(done);
    expect(completed.usage).toMatchObject({ input_tokens: 1200, input_tokens_details: { cached_tokens: 200 }, output_tokens: 80, total_tokens: 1280 });
  });

  it("answers a non-streamed request with the completed response object", async () => {
    kit.enqueue({ text: "plain" });
    const body = await (await post(kit, "openai-responses", simpleRequest("openai-responses", "hi", false))).json();
    expect(body).toMatchObject({ object: "response", status: "completed" });
    expect(body.output[0].content[0].text).toBe("plain");
  });
});
