// Credential isolation: a key goes only to its own entry's base URL. Unit rules on explicit env
// objects, then two real testkit servers that report which auth header each one received.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { envApiKey, envBaseUrl, resolveApiKey, type ModelEndpoint } from "../src/index.js";
import { request, run } from "./helpers/replay.js";

describe("env fallback rules", () => {
  const env = {
    DEEPSEEK_API_KEY: "ds-env",
    OPENAI_API_KEY: "oa-env",
    OPENAI_BASE_URL: "https://gateway.example/v1/",
    ANTHROPIC_API_KEY: "an-env",
    GEMINI_API_KEY: "gm-env",
  };

  it("the entry's own key always wins", () => {
    expect(resolveApiKey({ provider: "deepseek", baseUrl: "https://api.deepseek.com", apiKey: "own" }, env)).toBe("own");
  });

  it("an env key applies at its provider's official URL, however it is spelled", () => {
    expect(envApiKey({ provider: "deepseek", baseUrl: "https://api.deepseek.com" }, env)).toBe("ds-env");
    expect(envApiKey({ provider: "deepseek", baseUrl: "HTTPS://API.DEEPSEEK.COM:443/v1/" }, env)).toBe("ds-env");
    expect(envApiKey({ provider: "anthropic", baseUrl: "https://api.anthropic.com" }, env)).toBe("an-env");
    expect(envApiKey({ provider: "google", baseUrl: "https://generativelanguage.googleapis.com/v1beta" }, env)).toBe("gm-env");
    expect(envApiKey({ provider: "openai", baseUrl: "https://api.openai.com/v1" }, env)).toBe("oa-env");
  });

  it("an env key never goes to another base URL", () => {
    expect(envApiKey({ provider: "deepseek", baseUrl: "https://evil.example/v1" }, env)).toBeUndefined();
    expect(envApiKey({ provider: "deepseek", baseUrl: "http://api.deepseek.com" }, env)).toBeUndefined();
    expect(envApiKey({ provider: "anthropic", baseUrl: "https://api.anthropic.com.evil.example" }, env)).toBeUndefined();
    // A provider name alone does not carry a key: the URL is the deepseek one, the family is not.
    expect(envApiKey({ provider: "anthropic", baseUrl: "https://api.deepseek.com" }, env)).toBeUndefined();
  });

  it("the *_BASE_URL twin also qualifies; OPENAI_API_KEY reaches a gateway only through it", () => {
    expect(envApiKey({ provider: "openrouter", baseUrl: "https://gateway.example/v1" }, env)).toBe("oa-env");
    expect(envApiKey({ provider: "openrouter", baseUrl: "https://openrouter.ai/api/v1" }, env)).toBeUndefined();
    expect(envApiKey({ provider: "custom-thing", baseUrl: "https://gateway.example/v1" }, env)).toBe("oa-env");
    expect(envApiKey({ provider: "deepseek", baseUrl: "https://gateway.example/v1" }, env)).toBeUndefined();
  });

  it("reads the base URL twin", () => {
    expect(envBaseUrl("openrouter", env)).toBe("https://gateway.example/v1/");
    expect(envBaseUrl("deepseek", env)).toBeUndefined();
  });
});

describe("keys over the wire (two testkit servers)", () => {
  let a: Testkit;
  let b: Testkit;
  beforeAll(async () => {
    a = await startTestkit();
    b = await startTestkit();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it("each server sees only the key that belongs to it", async () => {
    const env = { DEEPSEEK_API_KEY: "ds-env-key", DEEPSEEK_BASE_URL: a.baseUrl("openai-chat") };
    const endpoint = (baseUrl: string, provider: string, apiKey?: string): ModelEndpoint => {
      const e: ModelEndpoint = { provider, modelId: "m", clientType: "openai-chat", baseUrl };
      const key = resolveApiKey({ provider, baseUrl, ...(apiKey === undefined ? {} : { apiKey }) }, env);
      if (key !== undefined) e.apiKey = key;
      return e;
    };
    a.enqueue({ text: "a1" }, { text: "a2" });
    b.enqueue({ text: "b1" }, { text: "b2" });
    // deepseek at its twin URL: env key. deepseek elsewhere without a key: none. Own keys: their own.
    expect((await run(request(endpoint(a.baseUrl("openai-chat"), "deepseek")))).outcome.status).toBe("completed");
    expect((await run(request(endpoint(b.baseUrl("openai-chat"), "deepseek")))).outcome.status).toBe("completed");
    expect((await run(request(endpoint(b.baseUrl("openai-chat"), "custom", "b-own-key")))).outcome.status).toBe("completed");
    expect((await run(request(endpoint(a.baseUrl("openai-chat"), "custom", "a-own-key")))).outcome.status).toBe("completed");

    expect(a.requests.map((r) => r.headers.authorization)).toEqual(["Bearer ds-env-key", "Bearer a-own-key"]);
    expect(b.requests.map((r) => r.headers.authorization)).toEqual([undefined, "Bearer b-own-key"]);
    const all = [...a.requests, ...b.requests].map((r) => JSON.stringify(r.headers) + r.rawBody);
    expect(all.filter((t) => t.includes("ds-env-key"))).toHaveLength(1);
    expect(b.requests.some((r) => JSON.stringify(r.headers).includes("a-own-key") || JSON.stringify(r.headers).includes("ds-env"))).toBe(false);
  });

  it("each protocol sends the key in its own header", async () => {
    const key = "k-123456";
    const cases = [
      ["openai-responses", "authorization", `Bearer ${key}`],
      ["anthropic-messages", "x-api-key", key],
      ["gemini", "x-goog-api-key", key],
    ] as const;
    for (const [clientType, header, value] of cases) {
      a.enqueue({ text: "ok" });
      const before = a.requests.length;
      await run(request({ provider: "p", modelId: "m", clientType, baseUrl: a.baseUrl(clientType), apiKey: key }));
      expect(a.requests[before]?.headers[header]).toBe(value);
      expect(a.requests[before]?.rawBody).not.toContain(key);
    }
  });
});
