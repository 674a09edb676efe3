/**
 * Render a planned turn as Gemini `streamGenerateContent?alt=sse`: unnamed `data:` events,
 * each a whole GenerateContentResponse. Thinking streams as `{text, thought: true}` parts,
 * then text parts, then all function calls in one chunk (Gemini sends complete calls, no
 * argument deltas, and no ids unless scripted), and a last chunk with an empty text part and
 * `finishReason: "STOP"` — STOP even after tool calls, as the API does.
 *
 * The thinking signature rides on the first functionCall part, or on that trailing empty text
 * part when there is no call (see google-tool-call-gemini3 and google-text in the fixtures).
 * Every chunk carries cumulative `usageMetadata`; output grows with the text sent so far.
 */
import { splitText } from "../chunk.js";
import { argumentsValue, type TurnPlan } from "../plan.js";
import type { SseEvent } from "../sse.js";

type Part = Record<string, unknown>;

export function geminiUsage(plan: TurnPlan, output: number): Record<string, unknown> {
  const { input, cached } = plan.usage;
  const usage: Record<string, unknown> = { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
  if (cached > 0) usage["cachedContentTokenCount"] = cached;
  return usage;
}

function callParts(plan: TurnPlan): Part[] {
  return plan.calls.map((call, position) => {
    const functionCall: Part = { name: call.name, args: argumentsValue(call.arguments) };
    if (call.id !== undefined) functionCall["id"] = call.id;
    const part: Part = { functionCall };
    if (position === 0 && plan.thinkingSignature !== undefined) part["thoughtSignature"] = plan.thinkingSignature;
    return part;
  });
}

function closingPart(plan: TurnPlan): Part {
  const part: Part = { text: "" };
  if (plan.calls.length === 0 && plan.thinkingSignature !== undefined) part["thoughtSignature"] = plan.thinkingSignature;
  return part;
}

export function renderGeminiStream(plan: TurnPlan): SseEvent[] {
  const chunks: { parts: Part[]; chars: number }[] = [
    ...splitText(plan.thinking, plan.chunkSize).map((text) => ({ parts: [{ text, thought: true }], chars: text.length })),
    ...splitText(plan.text, plan.chunkSize).map((text) => ({ parts: [{ text }], chars: text.length })),
  ];
  if (plan.calls.length > 0) {
    chunks.push({ parts: callParts(plan), chars: plan.calls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0) });
  }
  const totalChars = chunks.reduce((sum, chunk) => sum + chunk.chars, 0);
  let sentChars = 0;
  const events = chunks.map((chunk): SseEvent => {
    sentChars += chunk.chars;
    const output = totalChars === 0 ? 0 : Math.ceil((plan.usage.output * sentChars) / totalChars);
    return { data: JSON.stringify(response(plan, chunk.parts, undefined, output)) };
  });
  events.push({ data: JSON.stringify(response(plan, [closingPart(plan)], "STOP", plan.usage.output)) });
  return events;
}

function response(plan: TurnPlan, parts: Part[], finishReason: string | undefined, output: number): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" } };
  if (finishReason !== undefined) candidate["finishReason"] = finishReason;
  candidate["index"] = 0;
  return {
    candidates: [candidate],
    usageMetadata: geminiUsage(plan, output),
    modelVersion: plan.model,
    responseId: `tk${plan.requestIndex}`,
  };
}

/** The same turn as a non-streamed `generateContent` body: all parts in one candidate. */
export function renderGeminiBody(plan: TurnPlan): Record<string, unknown> {
  const parts: Part[] = [];
  if (plan.thinking !== "") parts.push({ text: plan.thinking, thought: true });
  if (plan.text !== "") parts.push({ text: plan.text });
  parts.push(...callParts(plan));
  if (plan.calls.length === 0 && plan.thinkingSignature !== undefined) parts.push(closingPart(plan));
  return response(plan, parts, "STOP", plan.usage.output);
}
