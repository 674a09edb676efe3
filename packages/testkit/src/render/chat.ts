/**
 * Render a planned turn as OpenAI Chat Completions: `chat.completion.chunk` events
 * (`delta.role`, `reasoning_content` for thinking, `content`, `tool_calls` with id and name
 * only on each call's first delta), a finish chunk, a `choices: []` usage chunk when the
 * request asked for `stream_options.include_usage`, then `[DONE]`. Shapes follow the
 * recorded OpenAI and DeepSeek streams in fixtures/provider-streams/openai-chat.
 */
import { splitText } from "../chunk.js";
import { callId, endsWithTools, type TurnPlan } from "../plan.js";
import type { SseEvent } from "../sse.js";

export const CHAT_DONE = "[DONE]";

export function chatUsage(plan: TurnPlan): Record<string, unknown> {
  const { input, cached, output } = plan.usage;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

export function renderChatStream(plan: TurnPlan, includeUsage: boolean): SseEvent[] {
  const base = { id: `chatcmpl-tk${plan.requestIndex}`, object: "chat.completion.chunk", created: plan.created, model: plan.model };
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): SseEvent => ({
    data: JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...usageField }),
  });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of splitText(plan.thinking, plan.chunkSize)) events.push(chunk({ reasoning_content: piece }));
  for (const piece of splitText(plan.text, plan.chunkSize)) events.push(chunk({ content: piece }));
  plan.calls.forEach((call, index) => {
    const first = { index, id: callId(plan, index, "call_"), type: "function", function: { name: call.name, arguments: "" } };
    events.push(chunk({ tool_calls: [first] }));
    for (const piece of splitText(call.arguments, plan.chunkSize)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, endsWithTools(plan) ? "tool_calls" : "stop"));
  if (includeUsage) events.push({ data: JSON.stringify({ ...base, choices: [], usage: chatUsage(plan) }) });
  events.push({ data: CHAT_DONE });
  return events;
}

/** The same turn as a non-streamed `chat.completion` body. */
export function renderChatBody(plan: TurnPlan): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: plan.text === "" ? null : plan.text, refusal: null };
  if (plan.thinking !== "") message["reasoning_content"] = plan.thinking;
  if (plan.calls.length > 0) {
    message["tool_calls"] = plan.calls.map((call, index) => ({
      id: callId(plan, index, "call_"),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: `chatcmpl-tk${plan.requestIndex}`,
    object: "chat.completion",
    created: plan.created,
    model: plan.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: endsWithTools(plan) ? "tool_calls" : "stop" }],
    usage: chatUsage(plan),
  };
}
