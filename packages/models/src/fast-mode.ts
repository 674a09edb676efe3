/**
 * Fast mode: the providers' paid low-latency tier, where one exists.
 *
 * OpenAI (chat and responses, on api.openai.com) takes `service_tier: "priority"`; Anthropic
 * takes `speed: "fast"` with the `fast-mode-2026-02-01` beta header. Every other endpoint
 * rejects a fast-mode request before sending it: permanent, since no retry can change that.
 */
import type { ModelEndpoint } from "./types.js";
import { hostOf } from "./url.js";

export type FastMode =
  | { supported: true; body: Record<string, string>; headers: Record<string, string> }
  | { supported: false };

export function fastModeFor(endpoint: ModelEndpoint): FastMode {
  const host = hostOf(endpoint.baseUrl);
  switch (endpoint.clientType) {
    case "openai-chat":
    case "openai-responses":
      return host === "api.openai.com"
        ? { supported: true, body: { service_tier: "priority" }, headers: {} }
        : { supported: false };
    case "anthropic-messages":
      return host === "api.anthropic.com"
        ? { supported: true, body: { speed: "fast" }, headers: { "anthropic-beta": "fast-mode-2026-02-01" } }
        : { supported: false };
    case "gemini":
      return { supported: false };
  }
}
