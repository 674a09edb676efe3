/**
 * Render a planned turn as the OpenAI Responses stream: `response.created` and
 * `response.in_progress`, then one output item after another — a `reasoning` item (summary
 * text deltas; `encrypted_content` carries the thinking signature), a `message` item
 * (`output_text` deltas inside a content part), `function_call` items (argument deltas) —
 * and `response.completed` with usage. Every event is named (`event:` = `type`) and numbered
 * (`sequence_number`), as in the recorded streams in fixtures/provider-streams/openai-responses.
 */
import { splitText } from "../chunk.js";
import { callId, type TurnPlan } from "../plan.js";
import { jsonEvent, type SseEvent } from "../sse.js";

type Payload = { type: string } & Record<string, unknown>;
type Item = Record<string, unknown>;

export function responsesUsage(plan: TurnPlan): Record<string, unknown> {
  const { input, cached, output } = plan.usage;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

function responseObject(plan: TurnPlan, status: "in_progress" | "completed", output: Item[]): Record<string, unknown> {
  return {
    id: `resp_tk${plan.requestIndex}`,
    object: "response",
    created_at: plan.created,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: plan.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    tool_choice: "auto",
    tools: [],
    usage: status === "completed" ? responsesUsage(plan) : null,
    metadata: {},
  };
}

/** The finished output items, in stream order; shared by the stream and the plain body. */
function finishedItems(plan: TurnPlan): Item[] {
  const items: Item[] = [];
  if (plan.thinking !== "" || plan.thinkingSignature !== undefined) items.push(reasoningItem(plan, true));
  if (plan.text !== "") items.push(messageItem(plan, "completed"));
  plan.calls.forEach((_, index) => items.push(callItem(plan, index, "completed")));
  return items;
}

function reasoningItem(plan: TurnPlan, done: boolean): Item {
  const item: Item = { id: `rs_tk${plan.requestIndex}`, type: "reasoning" };
  if (plan.thinkingSignature !== undefined) item["encrypted_content"] = plan.thinkingSignature;
  item["summary"] = done && plan.thinking !== "" ? [{ type: "summary_text", text: plan.thinking }] : [];
  return item;
}

function outputText(text: string): Item {
  return { type: "output_text", annotations: [], logprobs: [], text };
}

function messageItem(plan: TurnPlan, status: "in_progress" | "completed"): Item {
  const content = status === "completed" ? [outputText(plan.text)] : [];
  return { id: `msg_tk${plan.requestIndex}`, type: "message", status, content, role: "assistant" };
}

function callItem(plan: TurnPlan, index: number, status: "in_progress" | "completed"): Item {
  const call = plan.calls[index];
  return {
    id: `fc_tk${plan.requestIndex}_${index}`,
    type: "function_call",
    status,
    arguments: status === "completed" ? (call?.arguments ?? "") : "",
    call_id: callId(plan, index, "call_"),
    name: call?.name ?? "",
  };
}

export function renderResponsesStream(plan: TurnPlan): SseEvent[] {
  const payloads: Payload[] = [
    { type: "response.created", response: responseObject(plan, "in_progress", []) },
    { type: "response.in_progress", response: responseObject(plan, "in_progress", []) },
  ];
  let outputIndex = 0;
  if (plan.thinking !== "" || plan.thinkingSignature !== undefined) payloads.push(...reasoningEvents(plan, outputIndex++));
  if (plan.text !== "") payloads.push(...messageEvents(plan, outputIndex++));
  plan.calls.forEach((_, index) => payloads.push(...callEvents(plan, index, outputIndex++)));
  payloads.push({ type: "response.completed", response: responseObject(plan, "completed", finishedItems(plan)) });
  return payloads.map((payload, sequence) => jsonEvent({ ...payload, sequence_number: sequence }, true));
}

function reasoningEvents(plan: TurnPlan, outputIndex: number): Payload[] {
  const itemId = `rs_tk${plan.requestIndex}`;
  const where = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
  const events: Payload[] = [{ type: "response.output_item.added", output_index: outputIndex, item: reasoningItem(plan, false) }];
  if (plan.thinking !== "") {
    const part = (text: string): Item => ({ type: "summary_text", text });
    events.push({ type: "response.reasoning_summary_part.added", ...where, part: part("") });
    for (const delta of splitText(plan.thinking, plan.chunkSize)) {
      events.push({ type: "response.reasoning_summary_text.delta", ...where, delta });
    }
    events.push({ type: "response.reasoning_summary_text.done", ...where, text: plan.thinking });
    events.push({ type: "response.reasoning_summary_part.done", ...where, part: part(plan.thinking) });
  }
  events.push({ type: "response.output_item.done", output_index: outputIndex, item: reasoningItem(plan, true) });
  return events;
}

function messageEvents(plan: TurnPlan, outputIndex: number): Payload[] {
  const where = { item_id: `msg_tk${plan.requestIndex}`, output_index: outputIndex, content_index: 0 };
  return [
    { type: "response.output_item.added", output_index: outputIndex, item: messageItem(plan, "in_progress") },
    { type: "response.content_part.added", ...where, part: outputText("") },
    ...splitText(plan.text, plan.chunkSize).map((delta): Payload => ({ type: "response.output_text.delta", ...where, delta, logprobs: [] })),
    { type: "response.output_text.done", ...where, text: plan.text, logprobs: [] },
    { type: "response.content_part.done", ...where, part: outputText(plan.text) },
    { type: "response.output_item.done", output_index: outputIndex, item: messageItem(plan, "completed") },
  ];
}

function callEvents(plan: TurnPlan, index: number, outputIndex: number): Payload[] {
  const args = plan.calls[index]?.arguments ?? "";
  const where = { item_id: `fc_tk${plan.requestIndex}_${index}`, output_index: outputIndex };
  return [
    { type: "response.output_item.added", output_index: outputIndex, item: callItem(plan, index, "in_progress") },
    ...splitText(args, plan.chunkSize).map((delta): Payload => ({ type: "response.function_call_arguments.delta", ...where, delta })),
    { type: "response.function_call_arguments.done", ...where, arguments: args },
    { type: "response.output_item.done", output_index: outputIndex, item: callItem(plan, index, "completed") },
  ];
}

/** The same turn as a non-streamed Responses body (the object `response.completed` carries). */
export function renderResponsesBody(plan: TurnPlan): Record<string, unknown> {
  return responseObject(plan, "completed", finishedItems(plan));
}
