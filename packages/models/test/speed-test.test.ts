// Connectivity and speed test through the testkit, with an injected clock: TTFT and tokens per
// second come out exact, and failures come back as values.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { testModel } from "../src/index.js";

/** A clock that returns the given readings in order (then repeats the last). */
function clock(...readings: number[]): () => number {
  let i = 0;
  return () => readings[Math.min(i++, readings.length - 1)] ?? 0;
}

describe("testModel", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  it("measures time to first token and output tokens per second", async () => {
    kit.enqueue({ text: "one, two, three, four, five", usage: { input: 20, output: 30 } });
    const endpoint = { provider: "p", modelId: "m", clientType: "anthropic-messages" as const, baseUrl: kit.baseUrl("anthropic-messages"), apiKey: "k" };
    // start 1000 ms, first token 1250 ms, end 2250 ms → TTFT 250 ms, 30 tokens in 1 s.
    const result = await testModel(endpoint, { speed: true, now: clock(1000, 1250, 2250) });
    expect(result).toEqual({ ok: true, status: "completed", ttftMs: 250, tps: 30 });
    const body: unknown = kit.requests[0]?.body;
    expect(body).toMatchObject({ max_tokens: 1024, messages: [{ role: "user" }] });
  });

  it("a connectivity-only test reports TTFT but no TPS", async () => {
    kit.enqueue({ text: "OK" });
    const result = await testModel(
      { provider: "p", modelId: "m", clientType: "openai-chat", baseUrl: kit.baseUrl("openai-chat") },
      { now: clock(0, 80, 90) },
    );
    expect(result).toEqual({ ok: true, status: "completed", ttftMs: 80 });
  });

  it("with answer: true also reports the model's answer and the whole request's time", async () => {
    kit.enqueue({ thinking: "short", text: "OK", chunkSize: 1 });
    const result = await testModel({ provider: "p", modelId: "m", clientType: "openai-responses", baseUrl: kit.baseUrl("openai-responses") }, { answer: true, now: clock(100, 130, 175) });
    expect(result).toEqual({ ok: true, status: "completed", ttftMs: 30, answer: "OK", totalMs: 75 });
  });

  it("reports a failure with its class and message", async () => {
    kit.enqueue({ fault: { kind: "http", status: 401 } });
    const result = await testModel({ provider: "p", modelId: "m", clientType: "gemini", baseUrl: kit.baseUrl("gemini"), apiKey: "k" }, { speed: true });
    expect(result).toMatchObject({ ok: false, status: "auth" });
    expect(result.error).toMatch(/^p\/m: HTTP 401/);
  });
});
