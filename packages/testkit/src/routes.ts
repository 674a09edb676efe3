/**
 * Which endpoint a request is for, matched on the end of the path so that any base-URL
 * prefix (a gateway path, `/v1`, `/openai/v1`…) reaches the same fake.
 *
 * `GET …/models` is shared by OpenAI and Anthropic (`/v1/models`); the `anthropic-version`
 * header, which every Anthropic client sends, picks the Anthropic list shape.
 */
import type { WireProtocol } from "./script.js";

export type Route =
  /** A model request; `stream` is what the client asked for; `model` comes from the URL (Gemini). */
  | { kind: "model"; protocol: WireProtocol; stream: boolean; model: string | undefined }
  | { kind: "model-list"; shape: "openai" | "anthropic" | "gemini" }
  | { kind: "unknown" };

const GEMINI_PATH = /\/models\/([^/]+):(streamGenerateContent|generateContent)$/;

/** `stream` for body-driven protocols is decided later, from the body's `stream` field. */
export function matchRoute(method: string, pathname: string, headers: Record<string, string>): Route {
  if (method === "POST") {
    if (pathname.endsWith("/chat/completions")) return { kind: "model", protocol: "openai-chat", stream: true, model: undefined };
    if (pathname.endsWith("/responses")) return { kind: "model", protocol: "openai-responses", stream: true, model: undefined };
    if (pathname.endsWith("/v1/messages")) return { kind: "model", protocol: "anthropic-messages", stream: true, model: undefined };
    const gemini = GEMINI_PATH.exec(pathname);
    if (gemini !== null) {
      return { kind: "model", protocol: "gemini", stream: gemini[2] === "streamGenerateContent", model: decodeURIComponent(gemini[1] ?? "") };
    }
  }
  if (method === "GET") {
    if (pathname.endsWith("/v1beta/models")) return { kind: "model-list", shape: "gemini" };
    if (pathname.endsWith("/models")) return { kind: "model-list", shape: headers["anthropic-version"] !== undefined ? "anthropic" : "openai" };
  }
  return { kind: "unknown" };
}
