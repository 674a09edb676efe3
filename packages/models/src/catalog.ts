/**
 * The preset catalog: providers (official base URL, wire protocol) and model entries a new
 * project is seeded with.
 *
 * Prices are USD per million tokens in our three buckets: `cache_read` (cached prompt),
 * `cache_write` (uncached prompt: priced at the provider's base input rate; Anthropic's
 * cache-creation surcharge is not modelled), `output` (thinking included). They are the
 * providers' public list prices as we knew them when this file was written, are meant as
 * editable defaults (a project's `.project_config.toml` overrides them), and are left unset
 * where we had no reliable figure (cost is then reported as uncosted, never guessed as zero).
 * Local servers (Ollama, vLLM) cost nothing. `maxTokens` is a sensible per-request output cap
 * for agent work, not always the model's maximum.
 *
 * The fresh default model is `deepseek/deepseek-v4-flash`.
 */
import type { ClientType, ModelEndpoint, Pricing } from "./types.js";

export interface ProviderPreset {
  provider: string;
  displayName: string;
  baseUrl: string;
  clientType: ClientType;
}

export interface ModelPreset {
  provider: string;
  modelId: string;
  displayName: string;
  baseUrl: string;
  clientType: ClientType;
  contextWindow: number;
  maxTokens: number;
  vision: boolean;
  pricing?: Pricing;
}

export const DEFAULT_MODEL = { provider: "deepseek", modelId: "deepseek-v4-flash" } as const;

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { provider: "deepseek", displayName: "DeepSeek", baseUrl: "https://api.deepseek.com", clientType: "openai-chat" },
  { provider: "anthropic", displayName: "Anthropic", baseUrl: "https://api.anthropic.com", clientType: "anthropic-messages" },
  { provider: "openai", displayName: "OpenAI", baseUrl: "https://api.openai.com/v1", clientType: "openai-responses" },
  { provider: "google", displayName: "Google", baseUrl: "https://generativelanguage.googleapis.com/v1beta", clientType: "gemini" },
  { provider: "openrouter", displayName: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", clientType: "openai-chat" },
  { provider: "moonshot", displayName: "Moonshot AI", baseUrl: "https://api.moonshot.ai/v1", clientType: "openai-chat" },
  { provider: "zai", displayName: "Z.AI", baseUrl: "https://api.z.ai/api/paas/v4", clientType: "openai-chat" },
  { provider: "qwen", displayName: "Qwen (DashScope)", baseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", clientType: "openai-chat" },
  { provider: "siliconflow", displayName: "SiliconFlow", baseUrl: "https://api.siliconflow.cn/v1", clientType: "openai-chat" },
  { provider: "fireworks", displayName: "Fireworks", baseUrl: "https://api.fireworks.ai/inference/v1", clientType: "openai-chat" },
  { provider: "minimax", displayName: "MiniMax", baseUrl: "https://api.minimax.io/v1", clientType: "openai-chat" },
  { provider: "ollama", displayName: "Ollama (local)", baseUrl: "http://127.0.0.1:11434/v1", clientType: "openai-chat" },
  { provider: "vllm", displayName: "vLLM (local)", baseUrl: "http://127.0.0.1:8000/v1", clientType: "openai-chat" },
];

function price(cacheRead: number | undefined, cacheWrite: number, output: number): Pricing {
  const p: Pricing = { unit: "usd_per_mtok", cache_write: cacheWrite, output };
  if (cacheRead !== undefined) p.cache_read = cacheRead;
  return p;
}

const FREE: Pricing = { unit: "usd_per_mtok", cache_read: 0, cache_write: 0, output: 0 };

type ModelRow = [modelId: string, displayName: string, contextWindow: number, maxTokens: number, vision: boolean, pricing?: Pricing];

function models(provider: string, rows: ModelRow[]): ModelPreset[] {
  const p = PROVIDER_PRESETS.find((x) => x.provider === provider);
  if (p === undefined) throw new Error(`catalog: unknown provider "${provider}"; add it to PROVIDER_PRESETS first`);
  return rows.map(([modelId, displayName, contextWindow, maxTokens, vision, pricing]) => {
    const m: ModelPreset = { provider, modelId, displayName, baseUrl: p.baseUrl, clientType: p.clientType, contextWindow, maxTokens, vision };
    if (pricing !== undefined) m.pricing = pricing;
    return m;
  });
}

export const MODEL_PRESETS: readonly ModelPreset[] = [
  ...models("deepseek", [
    ["deepseek-v4-flash", "DeepSeek V4 Flash", 1048576, 65536, false, price(0.0028, 0.14, 0.28)],
    ["deepseek-v4-pro", "DeepSeek V4 Pro", 1048576, 65536, false, price(0.003625, 0.435, 0.87)],
  ]),
  ...models("anthropic", [
    ["claude-opus-4-5", "Claude Opus 4.5", 200000, 32000, true, price(0.5, 5, 25)],
    ["claude-sonnet-4-5", "Claude Sonnet 4.5", 200000, 32000, true, price(0.3, 3, 15)],
    ["claude-haiku-4-5", "Claude Haiku 4.5", 200000, 32000, true, price(0.1, 1, 5)],
  ]),
  ...models("openai", [
    ["gpt-5.1", "GPT-5.1", 400000, 64000, true, price(0.125, 1.25, 10)],
    ["gpt-5", "GPT-5", 400000, 64000, true, price(0.125, 1.25, 10)],
    ["gpt-5-mini", "GPT-5 mini", 400000, 64000, true, price(0.025, 0.25, 2)],
    ["gpt-5-nano", "GPT-5 nano", 400000, 64000, true, price(0.005, 0.05, 0.4)],
    ["gpt-4.1", "GPT-4.1", 1047576, 32768, true, price(0.5, 2, 8)],
  ]),
  ...models("google", [
    ["gemini-3-pro-preview", "Gemini 3 Pro (preview)", 1048576, 65536, true, price(0.2, 2, 12)],
    ["gemini-2.5-pro", "Gemini 2.5 Pro", 1048576, 65536, true, price(0.125, 1.25, 10)],
    ["gemini-2.5-flash", "Gemini 2.5 Flash", 1048576, 65536, true, price(0.03, 0.3, 2.5)],
    ["gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1048576, 65536, true, price(0.01, 0.1, 0.4)],
  ]),
  ...models("openrouter", [
    ["deepseek/deepseek-v4-flash", "DeepSeek V4 Flash (OpenRouter)", 1048576, 65536, false],
    ["anthropic/claude-sonnet-4.5", "Claude Sonnet 4.5 (OpenRouter)", 200000, 32000, true, price(0.3, 3, 15)],
    ["openai/gpt-5", "GPT-5 (OpenRouter)", 400000, 64000, true, price(0.125, 1.25, 10)],
    ["google/gemini-2.5-pro", "Gemini 2.5 Pro (OpenRouter)", 1048576, 65536, true, price(0.125, 1.25, 10)],
  ]),
  ...models("moonshot", [
    ["kimi-k2-0905-preview", "Kimi K2 (0905)", 262144, 32768, false, price(0.15, 0.6, 2.5)],
    ["kimi-k2-thinking", "Kimi K2 Thinking", 262144, 32768, false, price(0.15, 0.6, 2.5)],
  ]),
  ...models("zai", [
    ["glm-4.6", "GLM-4.6", 200000, 32768, false, price(0.11, 0.6, 2.2)],
    ["glm-4.5-air", "GLM-4.5-Air", 128000, 32768, false, price(0.03, 0.2, 1.1)],
  ]),
  ...models("qwen", [
    ["qwen3-max", "Qwen3 Max", 262144, 32768, false, price(undefined, 1.2, 6)],
    ["qwen-plus", "Qwen Plus", 1000000, 32768, false, price(undefined, 0.4, 1.2)],
    ["qwen3-coder-plus", "Qwen3 Coder Plus", 1000000, 65536, false, price(undefined, 1, 5)],
  ]),
  ...models("siliconflow", [
    ["deepseek-ai/DeepSeek-V3.2", "DeepSeek V3.2 (SiliconFlow)", 163840, 32768, false],
    ["Qwen/Qwen3-Coder-480B-A35B-Instruct", "Qwen3 Coder 480B (SiliconFlow)", 262144, 32768, false],
    ["moonshotai/Kimi-K2-Instruct-0905", "Kimi K2 (SiliconFlow)", 262144, 32768, false],
  ]),
  ...models("fireworks", [
    ["accounts/fireworks/models/deepseek-v3p1", "DeepSeek V3.1 (Fireworks)", 163840, 32768, false, price(undefined, 0.56, 1.68)],
    ["accounts/fireworks/models/kimi-k2-instruct-0905", "Kimi K2 (Fireworks)", 262144, 32768, false, price(undefined, 0.6, 2.5)],
    ["accounts/fireworks/models/qwen3-coder-480b-a35b-instruct", "Qwen3 Coder 480B (Fireworks)", 262144, 32768, false, price(undefined, 0.45, 1.8)],
  ]),
  ...models("minimax", [["MiniMax-M2", "MiniMax M2", 204800, 32768, false, price(0.03, 0.3, 1.2)]]),
  ...models("ollama", [
    ["qwen3:8b", "Qwen3 8B (Ollama)", 40960, 8192, false, FREE],
    ["gpt-oss:20b", "gpt-oss 20B (Ollama)", 131072, 16384, false, FREE],
  ]),
  ...models("vllm", [["Qwen/Qwen3-8B", "Qwen3 8B (vLLM)", 40960, 8192, false, FREE]]),
];

export function findProviderPreset(provider: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.provider === provider);
}

/** The preset for an explicit `(provider, modelId)` pair; never inferred from the model id alone. */
export function findModelPreset(provider: string, modelId: string): ModelPreset | undefined {
  return MODEL_PRESETS.find((m) => m.provider === provider && m.modelId === modelId);
}

/** A preset as an endpoint (no key: credentials are resolved separately). */
export function presetEndpoint(preset: ModelPreset): ModelEndpoint {
  const e: ModelEndpoint = {
    provider: preset.provider,
    modelId: preset.modelId,
    clientType: preset.clientType,
    baseUrl: preset.baseUrl,
    contextWindow: preset.contextWindow,
    maxTokens: preset.maxTokens,
    vision: preset.vision,
  };
  if (preset.pricing !== undefined) e.pricing = { ...preset.pricing };
  return e;
}
