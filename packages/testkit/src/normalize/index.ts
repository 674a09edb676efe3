/**
 * One entry point from (protocol, parsed body) to the protocol-independent request view that
 * RecordedRequest carries and the pairing check reads.
 */
import type { WireProtocol } from "../script.js";
import { isRecord } from "../json.js";
import { normalizeAnthropic } from "./anthropic.js";
import { normalizeChat } from "./chat.js";
import type { NormalizedRequest } from "./content.js";
import { normalizeGemini } from "./gemini.js";
import { normalizeResponses } from "./responses.js";

export type { NormalizedRequest } from "./content.js";

/** `urlModel` is the model named in the URL (Gemini); body-model protocols ignore it. */
export function normalizeRequest(protocol: WireProtocol, body: unknown, urlModel: string | undefined): NormalizedRequest {
  if (!isRecord(body)) return { model: urlModel, system: undefined, messages: [], toolNames: [] };
  switch (protocol) {
    case "openai-chat":
      return normalizeChat(body);
    case "openai-responses":
      return normalizeResponses(body);
    case "anthropic-messages":
      return normalizeAnthropic(body);
    case "gemini":
      return normalizeGemini(body, urlModel);
  }
}
