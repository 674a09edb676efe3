/**
 * The providers the "add from preset" form offers when the server does not list its own
 * catalog: where each provider's API lives and which wire protocol it speaks. Choosing one
 * fills the base URL and client type; the model ids then come from the endpoint itself
 * (`P/models/list`) or are typed. Prices are not guessed here: they are left empty (the
 * server prices catalog models itself) and can be filled in the form.
 */
import type { ProviderPreset } from "../../api/types";

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
