// Routing and probes: base URLs per protocol, model lists in each provider's shape, and the
// 400 error shapes a detector sees when it POSTs an empty object.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FAKE_MODEL_IDS, startTestkit, WIRE_PROTOCOLS, type Testkit } from "../src/index.js";
import { modelUrl, post } from "./helpers/requests.js";

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("routes", () => {
  it("listens on 127.0.0.1 and gives each protocol its base URL", () => {
    expect(kit.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(kit.baseUrl("openai-chat")).toBe(`${kit.url}/v1`);
    expect(kit.baseUrl("openai-responses")).toBe(`${kit.url}/v1`);
    expect(kit.baseUrl("anthropic-messages")).toBe(kit.url);
    expect(kit.baseUrl("gemini")).toBe(`${kit.url}/v1beta`);
  });

  it("matches on the path suffix, so any prefix works", async () => {
    kit.enqueue({ text: "via a gateway", chunkSize: 100 });
    const res = await fetch(`${kit.url}/gateway/openai/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(await res.text()).toContain("via a gateway");
    expect(kit.requests[0]?.protocol).toBe("openai-chat");
  });

  it("lists models in the OpenAI, Anthropic and Gemini shapes", async () => {
    const openai = await (await fetch(`${kit.url}/v1/models`)).json();
    expect(openai.object).toBe("list");
    expect(openai.data.map((m: any) => m.id)).toEqual(FAKE_MODEL_IDS);
    const anthropic = await (await fetch(`${kit.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } })).json();
    expect(anthropic.data[0]).toMatchObject({ type: "model", id: FAKE_MODEL_IDS[0] });
    expect(anthropic.has_more).toBe(false);
    const gemini = await (await fetch(`${kit.url}/v1beta/models`)).json();
    expect(gemini.models[0].name).toBe(`models/${FAKE_MODEL_IDS[0]}`);
    expect(kit.requests).toHaveLength(0);
  });

  it.each(WIRE_PROTOCOLS)("%s: POST {} answers 400 in the protocol's error shape and consumes no step", async (protocol) => {
    kit.enqueue({ text: "kept" });
    const res = await post(kit, protocol, {});
    expect(res.status).toBe(400);
    const body = await res.json();
    if (protocol === "anthropic-messages") expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    else if (protocol === "gemini") expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    else expect(body.error).toMatchObject({ type: "invalid_request_error", param: null });
    expect(kit.pending()).toBe(1);
    expect(kit.violations).toEqual([]);
    expect(kit.requests).toHaveLength(1);
  });

  it("refuses Gemini streaming without ?alt=sse, like a client bug deserves", async () => {
    kit.enqueue({ text: "kept" });
    const url = modelUrl(kit, "gemini").replace("?alt=sse", "");
    const res = await fetch(url, { method: "POST", body: JSON.stringify({ contents: [] }) });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/alt=sse/);
  });

  it("answers 404 on unknown paths", async () => {
    const res = await fetch(`${kit.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toMatch(/no route for POST \/v1\/embeddings/);
  });
});
