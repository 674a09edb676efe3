/**
 * The minimal request validation a real provider would do before answering, so that a probe
 * (POST `{}`) or a client bug gets that protocol's 400 instead of a scripted turn. Only the
 * fields without which the provider refuses outright are checked.
 */
import { isRecord } from "./json.js";
import type { WireProtocol } from "./script.js";

/** The provider-style complaint, or undefined when the body is acceptable. */
export function validateRequest(protocol: WireProtocol, body: unknown): string | undefined {
  if (!isRecord(body)) return "testkit: the request body is not a JSON object";
  switch (protocol) {
    case "openai-chat":
      if (typeof body["model"] !== "string") return "you must provide a model parameter";
      if (!Array.isArray(body["messages"])) return "Missing required parameter: 'messages'.";
      return undefined;
    case "openai-responses":
      if (typeof body["model"] !== "string") return "Missing required parameter: 'model'.";
      if (typeof body["input"] !== "string" && !Array.isArray(body["input"])) return "Missing required parameter: 'input'.";
      return undefined;
    case "anthropic-messages":
      if (typeof body["model"] !== "string") return "model: Field required";
      if (!Array.isArray(body["messages"])) return "messages: Field required";
      if (typeof body["max_tokens"] !== "number") return "max_tokens: Field required";
      return undefined;
    case "gemini":
      if (!Array.isArray(body["contents"])) return "* GenerateContentRequest.contents: contents is not specified";
      return undefined;
  }
}
