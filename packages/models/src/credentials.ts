/**
 * API keys: an entry's own `api_key` first, else an environment fallback that is only ever
 * sent to that key's own endpoint.
 *
 * Each env key (`DEEPSEEK_API_KEY`, `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`,
 * `ZAI_API_KEY`, `MOONSHOT_API_KEY`, `MINIMAX_API_KEY`) serves a family of providers and has a
 * `*_BASE_URL` twin. The env key applies to an entry only when the entry's provider belongs to
 * the family AND the entry's base URL is the family's official URL or equals the twin.
 * `OPENAI_API_KEY` serves `openai` and the OpenAI-compatible gateways (`openrouter`,
 * `fireworks`, `siliconflow`, `qwen`, and unknown/custom providers), but its official URL is
 * OpenAI's: a gateway entry only gets it when `OPENAI_BASE_URL` points at that gateway. So a
 * key set for one endpoint can never leak to another because of a provider name.
 * URLs are compared normalised (scheme, host, path; no trailing slash, no default port).
 */
import type { ModelEndpoint } from "./types.js";
import { normalizeUrl } from "./url.js";

export type Env = Record<string, string | undefined>;

export interface KeyFamily {
  envKey: string;
  envBaseUrl: string;
  /** Where the env key may be sent without a `*_BASE_URL` twin. */
  officialBaseUrls: readonly string[];
  providers: readonly string[];
}

export const KEY_FAMILIES: readonly KeyFamily[] = [
  {
    envKey: "DEEPSEEK_API_KEY",
    envBaseUrl: "DEEPSEEK_BASE_URL",
    officialBaseUrls: ["https://api.deepseek.com", "https://api.deepseek.com/v1"],
    providers: ["deepseek"],
  },
  {
    envKey: "ANTHROPIC_API_KEY",
    envBaseUrl: "ANTHROPIC_BASE_URL",
    officialBaseUrls: ["https://api.anthropic.com"],
    providers: ["anthropic"],
  },
  {
    envKey: "OPENAI_API_KEY",
    envBaseUrl: "OPENAI_BASE_URL",
    officialBaseUrls: ["https://api.openai.com/v1"],
    providers: ["openai", "openrouter", "fireworks", "siliconflow", "qwen", "custom"],
  },
  {
    envKey: "GEMINI_API_KEY",
    envBaseUrl: "GEMINI_BASE_URL",
    officialBaseUrls: ["https://generativelanguage.googleapis.com/v1beta", "https://generativelanguage.googleapis.com/v1"],
    providers: ["google", "gemini"],
  },
  {
    envKey: "ZAI_API_KEY",
    envBaseUrl: "ZAI_BASE_URL",
    officialBaseUrls: ["https://api.z.ai/api/paas/v4", "https://api.z.ai/api/coding/paas/v4"],
    providers: ["zai"],
  },
  {
    envKey: "MOONSHOT_API_KEY",
    envBaseUrl: "MOONSHOT_BASE_URL",
    officialBaseUrls: ["https://api.moonshot.ai/v1", "https://api.moonshot.cn/v1"],
    providers: ["moonshot"],
  },
  {
    envKey: "MINIMAX_API_KEY",
    envBaseUrl: "MINIMAX_BASE_URL",
    officialBaseUrls: ["https://api.minimax.io/v1"],
    providers: ["minimax"],
  },
];

const OPENAI_FAMILY = "OPENAI_API_KEY";

/** The env family of a provider; unknown providers count as OpenAI-compatible custom entries. */
export function keyFamilyOf(provider: string): KeyFamily | undefined {
  return KEY_FAMILIES.find((f) => f.providers.includes(provider)) ?? KEY_FAMILIES.find((f) => f.envKey === OPENAI_FAMILY);
}

/** The env key for this entry, when the isolation rule allows it; else undefined. */
export function envApiKey(entry: Pick<ModelEndpoint, "provider" | "baseUrl">, env: Env): string | undefined {
  const family = keyFamilyOf(entry.provider);
  if (family === undefined) return undefined;
  const key = env[family.envKey];
  if (key === undefined || key === "") return undefined;
  const target = normalizeUrl(entry.baseUrl);
  if (target === undefined) return undefined;
  const twin = env[family.envBaseUrl];
  const allowed = [...family.officialBaseUrls, ...(twin === undefined || twin === "" ? [] : [twin])];
  return allowed.some((u) => normalizeUrl(u) === target) ? key : undefined;
}

/** The key to send for this entry: its own, else the env fallback. */
export function resolveApiKey(entry: Pick<ModelEndpoint, "provider" | "baseUrl" | "apiKey">, env: Env = process.env): string | undefined {
  return entry.apiKey ?? envApiKey(entry, env);
}

/** The `*_BASE_URL` twin for a provider, when set (to seed a preset's base URL). */
export function envBaseUrl(provider: string, env: Env = process.env): string | undefined {
  const family = keyFamilyOf(provider);
  const v = family === undefined ? undefined : env[family.envBaseUrl];
  return v === undefined || v === "" ? undefined : v;
}
