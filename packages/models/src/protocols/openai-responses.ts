/**
 * OpenAI Responses: `<baseUrl>/responses`, `Authorization: Bearer`, stateless
 * (`store: false`, `include: ["reasoning.encrypted_content"]`), streamed.
 *
 * Fidelity: a `reasoning` item must go back whole, so the thinking payload keeps the exact
 * JSON text of the item from `response.output_item.done` (`fidelity.reasoning_item`; its
 * `encrypted_content` differs between `added`, `done` and `completed`, and `done` is the one
 * to keep) and the request splices it back verbatim. Messages and function calls keep their
 * item id (`fidelity.item_id`); the id is only re-sent when the run also carries its reasoning
 * item, because a `fc_…`/`msg_…` id without its reasoning is rejected. Tool results are
 * `function_call_output` items keyed by `call_id` (our `tool_call_id`).
 *
 * Stream: reasoning-summary and reasoning-text deltas are thinking (summary parts are joined
 * with a blank line); output text and refusal deltas are text; function-call argument deltas
 * build the call. `response.completed` and `response.incomplete` end it (usage from the
 * response); `error` and `response.failed` end it as provider errors; anything else before
 * the body runs out is `malformed`. A function call named `parallel` that wraps several calls
 * (`tool_uses[].recipient_name: "functions.<name>"`) is unwrapped into separate calls with
 * ids `<call_id>_<n>`, unless the caller really offered a tool named `parallel`.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import type { ResponseAssembler, Segment } from "../assembler.js";
import { streamErrorOf, type ErrorClass } from "../errors.js";
import { fastModeFor } from "../fast-mode.js";
import { fidelityString, toRuns, type AssistantItem, type Run, type UserItem } from "../history.js";
import type { WireRequest } from "../http.js";
import { arrayAt, isRecord, parseJson, recordAt, stringAt, numberAt, type JsonRecord } from "../json.js";
import { outputCap, tokensForLength } from "../output-cap.js";
import { RawJson, rawMember, stringifyWithRaw } from "../raw-json.js";
import type { SseEvent } from "../sse.js";
import { outputForWire, serializedLength } from "../wire-body.js";
import { buildBody, EncodedOnce, ListCache, wireCacheBypassed } from "../wire-cache.js";
import { responsesReasoning } from "../thinking.js";
import type { FinishKind, ModelRequest } from "../types.js";
import { joinUrl } from "../url.js";
import { usageFromResponses } from "../usage.js";
import { malformed, type Ending, type ProtocolAdapter, type StreamReducer } from "./adapter.js";

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

function userInput(items: UserItem[]): unknown[] {
  const out: unknown[] = [];
  const content: JsonRecord[] = [];
  for (const item of items) {
    switch (item.type) {
      case "tool_call_output": {
        const images = item.images ?? [];
        const output: unknown =
          images.length === 0
            ? outputForWire(item)
            : [{ type: "input_text", text: outputForWire(item) }, ...images.map((url) => ({ type: "input_image", image_url: url }))];
        out.push({ type: "function_call_output", call_id: item.tool_call_id, output });
        break;
      }
      case "text":
        if (item.text !== "") content.push({ type: "input_text", text: item.text });
        break;
      case "image_url":
        content.push({ type: "input_image", image_url: item.image_url });
        break;
      case "inline_data":
        if (item.mime_type.startsWith("image/")) {
          content.push({ type: "input_image", image_url: `data:${item.mime_type};base64,${item.data}` });
        }
        break;
    }
  }
  if (content.length > 0) out.push({ type: "message", role: "user", content });
  return out;
}

function assistantInput(items: AssistantItem[]): unknown[] {
  const out: unknown[] = [];
  const hasReasoning = items.some((i) => i.type === "thinking" && fidelityString(i.fidelity, "reasoning_item") !== undefined);
  for (const item of items) {
    switch (item.type) {
      case "thinking": {
        const raw = fidelityString(item.fidelity, "reasoning_item");
        if (raw !== undefined) out.push(new RawJson(raw));
        break;
      }
      case "text": {
        if (item.text === "") break;
        const msg: JsonRecord = { type: "message", role: "assistant", content: [{ type: "output_text", text: item.text }] };
        const id = fidelityString(item.fidelity, "item_id");
        if (hasReasoning && id !== undefined) msg.id = id;
        const phase = fidelityString(item.fidelity, "phase");
        if (phase !== undefined) msg.phase = phase;
        out.push(msg);
        break;
      }
      case "tool_call": {
        const call: JsonRecord = { type: "function_call", call_id: item.tool_call_id, name: item.name, arguments: item.arguments };
        const id = fidelityString(item.fidelity, "item_id");
        if (hasReasoning && id !== undefined) call.id = id;
        out.push(call);
        break;
      }
      case "inline_thinking":
      case "inline_data":
        break;
    }
  }
  return out;
}

function runInput(run: Run): unknown[] {
  return run.side === "user" ? userInput(run.items) : assistantInput(run.items);
}

/** The history as Responses input items (reasoning items as RawJson), encoded afresh: what the cached list below must equal. */
export function responsesInput(req: ModelRequest): unknown[] {
  const out: unknown[] = [];
  for (const run of toRuns(req.messages)) out.push(...runInput(run));
  return out;
}

const responsesTools = new EncodedOnce();
const responsesInstructions = new EncodedOnce();

/** Each run's items encoded once (reasoning items spliced verbatim by `stringifyWithRaw`). */
const responsesLists = new ListCache({ elementsOf: runInput, stringify: stringifyWithRaw });

export function buildResponsesRequest(req: ModelRequest, apiKey: string | undefined): WireRequest {
  const e = req.endpoint;
  const input = wireCacheBypassed() ? responsesInput(req) : responsesLists.list(req.messages);
  const tools = responsesTools.get(req.tools, () =>
    req.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters ?? { type: "object", properties: {} },
      strict: false,
    })),
  );
  const body: JsonRecord = { model: e.modelId };
  const prompt = req.systemPrompt;
  if (prompt !== undefined && prompt !== "") body.instructions = responsesInstructions.get(prompt, () => prompt);
  body.input = input;
  if (req.tools.length > 0) body.tools = tools;
  body.stream = true;
  body.store = false;
  body.include = ["reasoning.encrypted_content"];
  const reasoning = responsesReasoning(req.thinkingLevel);
  if (reasoning !== undefined) body.reasoning = reasoning;
  const cap = outputCap(e, () => tokensForLength(serializedLength(body, stringifyWithRaw)));
  if (cap !== undefined) body.max_output_tokens = cap;
  const fast = e.fastMode === true ? fastModeFor(e) : undefined;
  if (fast?.supported === true) Object.assign(body, fast.body);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(e.headers ?? {}),
  };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  return { url: joinUrl(e.baseUrl, "/responses"), headers, body: buildBody(body, stringifyWithRaw) };
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

function responsesErrorClass(code: string | undefined): ErrorClass {
  switch (code) {
    case "invalid_api_key":
    case "authentication_error":
      return "auth";
    case "rate_limit_exceeded":
      return "rate_limit";
    case "insufficient_quota":
      return "quota";
    case "server_error":
    case "internal_error":
      return "server";
    case "server_is_overloaded":
    case "slow_down":
      return "overloaded";
    case "invalid_prompt":
    case "invalid_request_error":
    case "context_length_exceeded":
    case "invalid_image":
      return "invalid_request";
    default:
      return "unknown";
  }
}

function incompleteFinish(reason: string | undefined): FinishKind {
  switch (reason) {
    case "max_output_tokens":
      return "max_tokens";
    case "content_filter":
      return "content_filter";
    default:
      return "other";
  }
}

interface Wrapper {
  callId: string;
  args: string;
}

/** Unwraps `{"tool_uses":[{"recipient_name":"functions.x","parameters":{…}}]}`, or undefined. */
export function unwrapParallel(args: string): { name: string; arguments: string }[] | undefined {
  const parsed = parseJson(args);
  if (!parsed.ok) return undefined;
  const uses = arrayAt(parsed.value, "tool_uses");
  if (uses.length === 0) return undefined;
  const calls: { name: string; arguments: string }[] = [];
  for (const use of uses) {
    const recipient = stringAt(use, "recipient_name");
    if (recipient === undefined) return undefined;
    const name = recipient.startsWith("functions.") ? recipient.slice("functions.".length) : recipient;
    const params = isRecord(use) ? use.parameters : undefined;
    calls.push({ name, arguments: JSON.stringify(isRecord(params) ? params : {}) });
  }
  return calls;
}

export function createResponsesReducer(req: ModelRequest, asm: ResponseAssembler): StreamReducer {
  const segments = new Map<string, Segment>();
  const summaryIndex = new Map<string, number>();
  const wrappers = new Map<string, Wrapper>();
  const unwrapAllowed = !req.tools.some((t) => t.name === "parallel");
  let ending: Ending | undefined;

  const keyOf = (o: unknown): string => stringAt(o, "item_id") ?? String(numberAt(o, "output_index") ?? "");

  function thinkingFor(key: string): Segment {
    let seg = segments.get(key);
    if (seg === undefined) {
      seg = asm.open("thinking");
      segments.set(key, seg);
    }
    return seg;
  }

  function textFor(key: string): Segment {
    let seg = segments.get(key);
    if (seg === undefined) {
      seg = asm.open("text");
      segments.set(key, seg);
    }
    return seg;
  }

  function completed(response: unknown, finish: FinishKind): Ending {
    const u = recordAt(response, "usage");
    const usage: TokenCounts | undefined = Object.keys(u).length > 0 ? usageFromResponses(u) : undefined;
    return { kind: "completed", usage, finish };
  }

  function itemAdded(item: unknown): void {
    const id = stringAt(item, "id") ?? "";
    switch (stringAt(item, "type")) {
      case "reasoning":
        thinkingFor(id);
        break;
      case "function_call": {
        const name = stringAt(item, "name") ?? "";
        const callId = stringAt(item, "call_id") ?? id;
        if (name === "parallel" && unwrapAllowed) {
          wrappers.set(id, { callId, args: stringAt(item, "arguments") ?? "" });
          break;
        }
        const seg = asm.open("tool_call", { id: callId, name });
        segments.set(id, seg);
        asm.append(seg, stringAt(item, "arguments") ?? "");
        break;
      }
      default:
        break; // messages open lazily at their first text delta
    }
  }

  function itemDone(item: unknown, data: string): void {
    const id = stringAt(item, "id") ?? "";
    switch (stringAt(item, "type")) {
      case "reasoning": {
        const seg = thinkingFor(id);
        const raw = rawMember(data, "item");
        if (raw !== undefined) asm.setFidelity(seg, { reasoning_item: raw });
        asm.close(seg);
        break;
      }
      case "message": {
        let seg = segments.get(id);
        if (seg === undefined) {
          const full = arrayAt(item, "content")
            .map((c) => stringAt(c, "text") ?? stringAt(c, "refusal") ?? "")
            .join("");
          if (full === "") break;
          seg = textFor(id);
          asm.append(seg, full);
        }
        const fidelity: JsonRecord = { item_id: id };
        const phase = stringAt(item, "phase");
        if (phase !== undefined) fidelity.phase = phase;
        asm.setFidelity(seg, fidelity);
        asm.close(seg);
        break;
      }
      case "function_call": {
        const wrapper = wrappers.get(id);
        if (wrapper !== undefined) {
          wrappers.delete(id);
          finishWrapper(wrapper, stringAt(item, "arguments") ?? wrapper.args);
          break;
        }
        const seg = segments.get(id) ?? asm.open("tool_call", { id: stringAt(item, "call_id") ?? id, name: stringAt(item, "name") ?? "" });
        if (seg.body === "") asm.append(seg, stringAt(item, "arguments") ?? "");
        asm.setFidelity(seg, { item_id: id });
        asm.close(seg);
        break;
      }
      default:
        break;
    }
  }

  function finishWrapper(w: Wrapper, args: string): void {
    const calls = unwrapParallel(args);
    if (calls === undefined) {
      const seg = asm.open("tool_call", { id: w.callId, name: "parallel" });
      asm.append(seg, args);
      asm.close(seg);
      return;
    }
    calls.forEach((c, n) => {
      const seg = asm.open("tool_call", { id: `${w.callId}_${n}`, name: c.name });
      asm.append(seg, c.arguments);
      asm.setFidelity(seg, { unwrapped_from: w.callId });
      asm.close(seg);
    });
  }

  function streamError(error: unknown): Ending {
    const e = streamErrorOf(error);
    return { kind: "failed", failure: { kind: "stream_error", errorClass: responsesErrorClass(e.code), error: e } };
  }

  function event(ev: unknown, data: string): void {
    const type = stringAt(ev, "type");
    switch (type) {
      case "response.output_item.added":
        itemAdded(recordAt(ev, "item"));
        break;
      case "response.output_item.done":
        itemDone(recordAt(ev, "item"), data);
        break;
      case "response.reasoning_summary_part.added": {
        const key = keyOf(ev);
        const index = numberAt(ev, "summary_index") ?? 0;
        const seg = thinkingFor(key);
        const last = summaryIndex.get(key);
        if (last !== undefined && last !== index && seg.body !== "") asm.append(seg, "\n\n");
        summaryIndex.set(key, index);
        break;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        asm.append(thinkingFor(keyOf(ev)), stringAt(ev, "delta") ?? "");
        break;
      case "response.output_text.delta":
      case "response.refusal.delta":
        asm.append(textFor(keyOf(ev)), stringAt(ev, "delta") ?? "");
        break;
      case "response.function_call_arguments.delta": {
        const key = keyOf(ev);
        const wrapper = wrappers.get(key);
        if (wrapper !== undefined) wrapper.args += stringAt(ev, "delta") ?? "";
        else {
          const seg = segments.get(key);
          if (seg !== undefined) asm.append(seg, stringAt(ev, "delta") ?? "");
        }
        break;
      }
      case "response.function_call_arguments.done": {
        const key = keyOf(ev);
        const wrapper = wrappers.get(key);
        const args = stringAt(ev, "arguments") ?? "";
        if (wrapper !== undefined) wrapper.args = args;
        else {
          const seg = segments.get(key);
          if (seg !== undefined && seg.body === "") asm.append(seg, args);
        }
        break;
      }
      case "response.completed":
        ending = completed(recordAt(ev, "response"), asm.hasToolCalls ? "tool_use" : "stop");
        break;
      case "response.incomplete": {
        const response = recordAt(ev, "response");
        ending = completed(response, incompleteFinish(stringAt(recordAt(response, "incomplete_details"), "reason")));
        break;
      }
      case "response.failed":
        ending = streamError(recordAt(recordAt(ev, "response"), "error"));
        break;
      case "error":
        ending = streamError(isRecord(ev) && isRecord(ev.error) ? ev.error : ev);
        break;
      default:
        break;
    }
  }

  return {
    feed(ev: SseEvent) {
      if (ending !== undefined) return;
      if (ev.data.trim() === "[DONE]") {
        ending = malformed("stream ended with [DONE] before response.completed");
        return;
      }
      const parsed = parseJson(ev.data);
      if (!parsed.ok || !isRecord(parsed.value)) {
        ending = malformed("bad JSON in a stream event");
        return;
      }
      event(parsed.value, ev.data);
    },
    get ending() {
      return ending;
    },
    end() {
      return ending ?? malformed("stream ended without response.completed");
    },
  };
}

export const openaiResponses: ProtocolAdapter = {
  buildRequest: buildResponsesRequest,
  createReducer: createResponsesReducer,
};
