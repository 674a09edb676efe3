/**
 * Render a planned turn as the Anthropic Messages stream: `message_start` (input usage),
 * a `ping`, one `content_block_start/delta/stop` group per block — `thinking` (`thinking_delta`
 * then a `signature_delta` when a signature is scripted), `text` (`text_delta`), `tool_use`
 * (`input_json_delta`, starting with an empty one as the API does) — then `message_delta`
 * (stop reason, usage) and `message_stop`. Shapes follow fixtures/provider-streams/anthropic-messages.
 *
 * Usage is split the Anthropic way: `input_tokens` excludes the cached part, which is
 * reported as `cache_read_input_tokens`.
 */
import { splitText } from "../chunk.js";
import { argumentsValue, callId, endsWithTools, type TurnPlan } from "../plan.js";
import { jsonEvent, type SseEvent } from "../sse.js";

type Payload = { type: string } & Record<string, unknown>;

export function anthropicUsage(plan: TurnPlan, output: number): Record<string, unknown> {
  const { input, cached } = plan.usage;
  return {
    input_tokens: input - cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: output,
  };
}

function stopReason(plan: TurnPlan): string {
  return endsWithTools(plan) ? "tool_use" : "end_turn";
}

function messageObject(plan: TurnPlan, content: unknown[], done: boolean): Record<string, unknown> {
  return {
    id: `msg_tk${plan.requestIndex}`,
    type: "message",
    role: "assistant",
    model: plan.model,
    content,
    stop_reason: done ? stopReason(plan) : null,
    stop_sequence: null,
    usage: anthropicUsage(plan, done ? plan.usage.output : Math.min(1, plan.usage.output)),
  };
}

export function renderAnthropicStream(plan: TurnPlan): SseEvent[] {
  const payloads: Payload[] = [{ type: "message_start", message: messageObject(plan, [], false) }, { type: "ping" }];
  let index = 0;
  if (plan.thinking !== "" || plan.thinkingSignature !== undefined) {
    const deltas: Record<string, unknown>[] = splitText(plan.thinking, plan.chunkSize).map((thinking) => ({ type: "thinking_delta", thinking }));
    if (plan.thinkingSignature !== undefined) deltas.push({ type: "signature_delta", signature: plan.thinkingSignature });
    payloads.push(...block(index++, { type: "thinking", thinking: "", signature: "" }, deltas));
  }
  if (plan.text !== "") {
    const deltas = splitText(plan.text, plan.chunkSize).map((text) => ({ type: "text_delta", text }));
    payloads.push(...block(index++, { type: "text", text: "" }, deltas));
  }
  plan.calls.forEach((call, position) => {
    const start = { type: "tool_use", id: callId(plan, position, "toolu_"), name: call.name, input: {} };
    const pieces = ["", ...splitText(call.arguments, plan.chunkSize)];
    payloads.push(...block(index++, start, pieces.map((partial_json) => ({ type: "input_json_delta", partial_json }))));
  });
  payloads.push(
    { type: "message_delta", delta: { stop_reason: stopReason(plan), stop_sequence: null }, usage: anthropicUsage(plan, plan.usage.output) },
    { type: "message_stop" },
  );
  return payloads.map((payload) => jsonEvent(payload, true));
}

function block(index: number, start: Record<string, unknown>, deltas: Record<string, unknown>[]): Payload[] {
  return [
    { type: "content_block_start", index, content_block: start },
    ...deltas.map((delta): Payload => ({ type: "content_block_delta", index, delta })),
    { type: "content_block_stop", index },
  ];
}

/** The same turn as a non-streamed Messages body. */
export function renderAnthropicBody(plan: TurnPlan): Record<string, unknown> {
  const content: unknown[] = [];
  if (plan.thinking !== "" || plan.thinkingSignature !== undefined) {
    content.push({ type: "thinking", thinking: plan.thinking, signature: plan.thinkingSignature ?? "" });
  }
  if (plan.text !== "") content.push({ type: "text", text: plan.text });
  plan.calls.forEach((call, position) => {
    content.push({ type: "tool_use", id: callId(plan, position, "toolu_"), name: call.name, input: argumentsValue(call.arguments) });
  });
  return messageObject(plan, content, true);
}
