// Gemini rendering: GenerateContentResponse chunks shaped like the recorded Gemini streams;
// thought parts, text, function calls with the signature on the first call, cumulative usage.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestkit, type Testkit } from "../src/index.js";
import { post, simpleRequest } from "./helpers/requests.js";
import { conformance, fixturePayloads, shapeOf } from "./helpers/shape.js";
import { hasLoneSurrogate, parseSse, payloads } from "./helpers/sse-reader.js";
import { ARGS_A, ARGS_B, FULL_TURN, TEXT, THINKING } from "./helpers/turns.js";

const REFERENCE = shapeOf(
  fixturePayloads(["gemini/google-text.chunks.txt", "gemini/google-tool-call-gemini3.chunks.txt", "gemini/gemma-4-output-usage.chunks.txt"]),
);
// Documented by the API; the README notes that no recorded stream reports it.
const UNRECORDED = ["cachedContentTokenCount"];

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("gemini stream", () => {
  it("renders thinking, text, two tool calls and usage that parse back", async () => {
    kit.enqueue(FULL_TURN);
    const res = await post(kit, "gemini", simpleRequest("gemini"));
    const events = parseSse(await res.text());
    const chunks = payloads(events);

    expect(events.every((e) => e.event === undefined)).toBe(true);
    for (const chunk of chunks) expect(conformance(chunk, REFERENCE, UNRECORDED)).toEqual([]);
    const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
    expect(parts.filter((p) => p.thought === true).map((p) => p.text).join("")).toBe(THINKING);
    expect(parts.filter((p) => p.thought !== true && typeof p.text === "string").map((p) => p.text).join("")).toBe(TEXT);
    for (const p of parts) expect(hasLoneSurrogate(p.text ?? "")).toBe(false);

    const calls = parts.filter((p) => p.functionCall !== undefined);
    expect(calls.map((p) => p.functionCall)).toEqual([
      { name: "read", args: ARGS_A },
      { name: "grep", args: JSON.parse(ARGS_B) },
    ]);
    expect(calls[0].thoughtSignature).toBe("sig-Zm9vYmFy");
    expect(parts.filter((p) => p.thoughtSignature !== undefined)).toHaveLength(1);

    const finishes = chunks.map((c) => c.candidates[0].finishReason);
    expect(finishes.at(-1)).toBe("STOP");
    expect(finishes.slice(0, -1).every((f) => f === undefined)).toBe(true);
    const counts = chunks.map((c) => c.usageMetadata.candidatesTokenCount);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(chunks.at(-1)!.usageMetadata).toEqual({ promptTokenCount: 1200, cachedContentTokenCount: 200, candidatesTokenCount: 80, totalTokenCount: 1280 });
    expect(chunks.every((c) => c.modelVersion === "test-model")).toBe(true);
  });

  it("puts the signature on a trailing empty text part when there is no call", async () => {
    kit.enqueue({ thinking: "hmm", thinkingSignature: "sig-text", text: "hello" });
    const chunks = payloads(parseSse(await (await post(kit, "gemini", simpleRequest("gemini"))).text()));
    const last = chunks.at(-1)!.candidates[0];
    expect(last.content.parts).toEqual([{ text: "", thoughtSignature: "sig-text" }]);
    expect(last.finishReason).toBe("STOP");
    expect(chunks.at(-1)!.usageMetadata.cachedContentTokenCount).toBeUndefined();
  });

  it("answers generateContent with all parts in one response", async () => {
    kit.enqueue(FULL_TURN);
    const body = await (await post(kit, "gemini", simpleRequest("gemini"), false)).json();
    const parts = body.candidates[0].content.parts;
    expect(parts.map((p: any) => Object.keys(p).filter((k) => k !== "thoughtSignature")[0])).toEqual(["text", "text", "functionCall", "functionCall"]);
    expect(body.candidates[0].finishReason).toBe("STOP");
  });
});
