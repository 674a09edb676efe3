// The preset catalog: the fresh default, the providers and base URLs the issue names, and
// entries that are complete and consistent with their provider.
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES, DEFAULT_MODEL, MODEL_PRESETS, PROVIDER_PRESETS, findModelPreset, presetEndpoint } from "../src/index.js";

describe("preset catalog", () => {
  it("starts fresh projects on deepseek/deepseek-v4-flash over openai-chat", () => {
    expect(DEFAULT_MODEL).toEqual({ provider: "deepseek", modelId: "deepseek-v4-flash" });
    const preset = findModelPreset("deepseek", "deepseek-v4-flash");
    expect(preset).toMatchObject({ clientType: "openai-chat", baseUrl: "https://api.deepseek.com" });
    expect(findModelPreset("openrouter", "deepseek-v4-flash")).toBeUndefined(); // never inferred from the id alone
  });

  it("names every provider of the issue, with the given gateway and local URLs", () => {
    const urls = Object.fromEntries(PROVIDER_PRESETS.map((p) => [p.provider, p.baseUrl]));
    expect(Object.keys(urls).sort()).toEqual(
      ["anthropic", "deepseek", "fireworks", "google", "minimax", "moonshot", "ollama", "openai", "openrouter", "qwen", "siliconflow", "vllm", "zai"].sort(),
    );
    expect(urls).toMatchObject({
      openrouter: "https://openrouter.ai/api/v1",
      siliconflow: "https://api.siliconflow.cn/v1",
      fireworks: "https://api.fireworks.ai/inference/v1",
      minimax: "https://api.minimax.io/v1",
      ollama: "http://127.0.0.1:11434/v1",
      vllm: "http://127.0.0.1:8000/v1",
    });
  });

  it("has complete, consistent entries with non-negative prices", () => {
    const pairs = new Set<string>();
    for (const m of MODEL_PRESETS) {
      const provider = PROVIDER_PRESETS.find((p) => p.provider === m.provider);
      expect(provider, m.modelId).toBeDefined();
      expect(m.baseUrl).toBe(provider?.baseUrl);
      expect(CLIENT_TYPES).toContain(m.clientType);
      expect(m.contextWindow).toBeGreaterThanOrEqual(4096);
      expect(m.maxTokens).toBeLessThan(m.contextWindow);
      for (const v of [m.pricing?.cache_read, m.pricing?.cache_write, m.pricing?.output]) if (v !== undefined) expect(v).toBeGreaterThanOrEqual(0);
      const key = `${m.provider}/${m.modelId}`;
      expect(pairs.has(key), key).toBe(false);
      pairs.add(key);
    }
    for (const p of PROVIDER_PRESETS) expect(MODEL_PRESETS.some((m) => m.provider === p.provider), p.provider).toBe(true);
  });

  it("turns a preset into an endpoint without a key", () => {
    const preset = findModelPreset("anthropic", "claude-sonnet-4-5");
    if (preset === undefined) throw new Error("preset expected");
    const e = presetEndpoint(preset);
    expect(e).toMatchObject({ provider: "anthropic", modelId: "claude-sonnet-4-5", clientType: "anthropic-messages", baseUrl: "https://api.anthropic.com" });
    expect(e.apiKey).toBeUndefined();
  });
});
