/**
 * Pick the renderer for a protocol: a planned turn becomes either the SSE events of a
 * streamed answer or the JSON body of a plain one.
 */
import type { TurnPlan } from "../plan.js";
import type { WireProtocol } from "../script.js";
import type { SseEvent } from "../sse.js";
import { renderAnthropicBody, renderAnthropicStream } from "./anthropic.js";
import { renderChatBody, renderChatStream } from "./chat.js";
import { renderGeminiBody, renderGeminiStream } from "./gemini.js";
import { renderResponsesBody, renderResponsesStream } from "./responses.js";

export interface StreamOptions {
  /** Chat only: the request asked for `stream_options.include_usage`. */
  includeUsage: boolean;
}

export function renderStream(protocol: WireProtocol, plan: TurnPlan, options: StreamOptions): SseEvent[] {
  switch (protocol) {
    case "openai-chat":
      return renderChatStream(plan, options.includeUsage);
    case "openai-responses":
      return renderResponsesStream(plan);
    case "anthropic-messages":
      return renderAnthropicStream(plan);
    case "gemini":
      return renderGeminiStream(plan);
  }
}

export function renderBody(protocol: WireProtocol, plan: TurnPlan): Record<string, unknown> {
  switch (protocol) {
    case "openai-chat":
      return renderChatBody(plan);
    case "openai-responses":
      return renderResponsesBody(plan);
    case "anthropic-messages":
      return renderAnthropicBody(plan);
    case "gemini":
      return renderGeminiBody(plan);
  }
}
