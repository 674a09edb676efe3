/**
 * Error bodies in each protocol's own JSON shape, so a client's error classification is
 * exercised exactly as against the real provider:
 * - OpenAI (chat and responses): `{"error": {"message", "type", "param", "code"}}`
 * - Anthropic: `{"type": "error", "error": {"type", "message"}}`
 * - Gemini: `{"error": {"code", "message", "status"}}`
 */
import type { WireProtocol } from "./script.js";

export function errorBody(protocol: WireProtocol, status: number, message: string): string {
  switch (protocol) {
    case "openai-chat":
    case "openai-responses":
      return JSON.stringify({ error: { message, type: openAiType(status), param: null, code: openAiCode(status) } });
    case "anthropic-messages":
      return JSON.stringify({ type: "error", error: { type: anthropicType(status), message } });
    case "gemini":
      return JSON.stringify({ error: { code: status, message, status: geminiStatus(status) } });
  }
}

function openAiType(status: number): string {
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function openAiCode(status: number): string | null {
  if (status === 401) return "invalid_api_key";
  if (status === 429) return "rate_limit_exceeded";
  return null;
}

function anthropicType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

function geminiStatus(status: number): string {
  switch (status) {
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
  }
}
