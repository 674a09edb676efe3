/**
 * Anthropic Messages: `<baseUrl>/v1/messages` with `x-api-key` and
 * `anthropic-version: 2023-06-01`, streamed.
 *
 * Fidelity: a `thinking` block keeps its `signature` (`fidelity.signature`, the concatenated
 * `signature_delta`s) and a `redacted_thinking` block its opaque `data`
 * (`fidelity.redacted_thinking`, with empty thinking text); both go back unchanged, in their
 * order, on the next request. Thinking without one of these (from another provider) is not sent,
 * since Anthropic rejects unsigned thinking.
 *
 * Prompt caching: `cache_control: {type: "ephemeral"}` on the last tool, on the system prompt,
 * and on the last block of the last user-side message, so each request reuses the prefix the
 * previous one wrote (three of the four breakpoints Anthropic allows).
 *
 * Stream: `tool_use` arguments arrive as `input_json_delta` (none at all means `{}`). Usage is
 * split: `message_start` carries the input side, `message_delta` the output, and
 * `message_delta` fields win where both have one; a repeated `message_start` replaces the
 * first rather than adding to it. Server tool blocks (`server_tool_use`, `*_tool_result`) and
 * `ping` are skipped. A `refusal` stop ends cleanly with no content. The response ends at
 * `message_stop`; an `error` event is a provider error; a body that runs out first is
 * `malformed`.
 */
import type { ResponseAssembler, Segment } from "../assembler.js";
import { streamErrorOf, type ErrorClass } from "../errors.js";
import { fastModeFor } from "../fast-mode.js";
import { outputIsEmpty } from "@penguin/omnimessage";
import { fidelityString, parseDataUrl, toRuns, type AssistantItem, type Run, type UserItem } from "../history.js";
import type { WireRequest } from "../http.js";
import { isRecord, parseJson, recordAt, stringAt, type JsonRecord } from "../json.js";
import { outputCap, tokensForLength } from "../output-cap.js";
import type { SseEvent } from "../sse.js";
import { outputForWire, serializedLength, type EncodedJson } from "../wire-body.js";
import { buildBody, EncodedOnce, ListCache, wireCacheBypassed } from "../wire-cache.js";
import { anthropicBudget } from "../thinking.js";
import type { FinishKind, ModelRequest } from "../types.js";
import { joinUrl } from "../url.js";
import { usageFromAnthropic } from "../usage.js";
import { malformed, type Ending, type ProtocolAdapter, type StreamReducer } from "./adapter.js";

export const ANTHROPIC_VERSION = "2023-06-01";
/** `max_tokens` is required; this applies when the entry sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 32000;
const MIN_THINKING_BUDGET = 1024;
const EPHEMERAL = { type: "ephemeral" } as const;

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

function imageBlock(url: string): JsonRecord {
  const data = parseDataUrl(url);
  if (data !== undefined) return { type: "image", source: { type: "base64", media_type: data.mimeType, data: data.data } };
  return { type: "image", source: { type: "url", url } };
}

function userBlocks(items: UserItem[]): JsonRecord[] {
  const out: JsonRecord[] = [];
  for (const item of items) {
    switch (item.type) {
      case "tool_call_output": {
        const images = item.images ?? [];
        const block: JsonRecord = {
          type: "tool_result",
          tool_use_id: item.tool_call_id,
          content:
            images.length === 0
              ? outputForWire(item)
              : [...(outputIsEmpty(item) ? [] : [{ type: "text", text: outputForWire(item) }]), ...images.map(imageBlock)],
        };
        if (item.stop_reason === "failed") block.is_error = true;
        out.push(block);
        break;
      }
      case "text":
        if (item.text !== "") out.push({ type: "text", text: item.text });
        break;
      case "image_url":
        out.push(imageBlock(item.image_url));
        break;
      case "inline_data":
        if (item.mime_type.startsWith("image/")) {
          out.push({ type: "image", source: { type: "base64", media_type: item.mime_type, data: item.data } });
        } else if (item.mime_type === "application/pdf") {
          out.push({ type: "document", source: { type: "base64", media_type: item.mime_type, data: item.data } });
        }
        break;
    }
  }
  return out;
}

function toolInput(args: string): JsonRecord {
  const parsed = parseJson(args);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : {};
}

function assistantBlocks(items: AssistantItem[]): JsonRecord[] {
  const out: JsonRecord[] = [];
  for (const item of items) {
    switch (item.type) {
      case "thinking": {
        const signature = fidelityString(item.fidelity, "signature");
        const redacted = fidelityString(item.fidelity, "redacted_thinking");
        if (redacted !== undefined) out.push({ type: "redacted_thinking", data: redacted });
        else if (signature !== undefined) out.push({ type: "thinking", thinking: item.thinking, signature });
        break;
      }
      case "text":
        if (item.text !== "") out.push({ type: "text", text: item.text });
        break;
      case "tool_call":
        out.push({ type: "tool_use", id: item.tool_call_id, name: item.name, input: toolInput(item.arguments) });
        break;
      case "inline_thinking":
      case "inline_data":
        break;
    }
  }
  return out;
}

interface WireMessage {
  role: "user" | "assistant";
  content: JsonRecord[];
}

function runBlocks(run: Run): JsonRecord[] {
  return run.side === "user" ? userBlocks(run.items) : assistantBlocks(run.items);
}

/** The history as Anthropic messages, with the cache breakpoint on the last user-side block, encoded afresh: what the cached list below must equal. */
export function anthropicMessages(req: ModelRequest): WireMessage[] {
  const out: WireMessage[] = [];
  for (const run of toRuns(req.messages)) {
    const role = run.side;
    const content = runBlocks(run);
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  }
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (m === undefined || m.role !== "user") continue;
    const block = m.content[m.content.length - 1];
    if (block !== undefined) block.cache_control = EPHEMERAL;
    break;
  }
  return out;
}

/**
 * Runs of one side share a message (a run that sends no block leaves its neighbours' messages
 * one); the breakpoint is written at the end, into the last user-side block, so it is the one
 * earlier byte run that changes from a request to the next.
 */
const anthropicLists = new ListCache({
  group: { open: { user: '{"role":"user","content":[', assistant: '{"role":"assistant","content":[' }, close: "]}" },
  breakpoint: `,"cache_control":${JSON.stringify(EPHEMERAL)}`,
  elementsOf: runBlocks,
});

const anthropicTools = new EncodedOnce();
const anthropicSystem = new EncodedOnce();

/** The history as Anthropic messages, each run encoded once and kept (wire-cache.ts). */
export function encodedAnthropicMessages(req: ModelRequest): EncodedJson {
  return anthropicLists.list(req.messages);
}

export function buildAnthropicRequest(req: ModelRequest, apiKey: string | undefined): WireRequest {
  const e = req.endpoint;
  const messages = wireCacheBypassed() ? anthropicMessages(req) : encodedAnthropicMessages(req);
  const tools = anthropicTools.get(req.tools, () => {
    const list: JsonRecord[] = req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters ?? { type: "object", properties: {} },
    }));
    const lastTool = list[list.length - 1];
    if (lastTool !== undefined) lastTool.cache_control = EPHEMERAL;
    return list;
  });
  const system =
    req.systemPrompt !== undefined && req.systemPrompt !== ""
      ? anthropicSystem.get(req.systemPrompt, () => [{ type: "text", text: req.systemPrompt, cache_control: EPHEMERAL }])
      : undefined;
  const estimate = tokensForLength(serializedLength(messages) + serializedLength(tools) + (req.systemPrompt ?? "").length);
  const maxTokens = outputCap(e, estimate, ANTHROPIC_DEFAULT_MAX_TOKENS) ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  // max_tokens after the messages: an output cap that shrinks as the context fills must not
  // change the bytes before them.
  const body: JsonRecord = { model: e.modelId };
  if (system !== undefined) body.system = system;
  body.messages = messages;
  if (req.tools.length > 0) body.tools = tools;
  body.stream = true;
  body.max_tokens = maxTokens;
  const budget = anthropicBudget(req.thinkingLevel);
  if (budget !== undefined) {
    const fitted = Math.min(budget, maxTokens - MIN_THINKING_BUDGET);
    if (fitted >= MIN_THINKING_BUDGET) body.thinking = { type: "enabled", budget_tokens: fitted };
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    "anthropic-version": ANTHROPIC_VERSION,
    ...(e.headers ?? {}),
  };
  const fast = e.fastMode === true ? fastModeFor(e) : undefined;
  if (fast?.supported === true) {
    Object.assign(body, fast.body);
    Object.assign(headers, fast.headers);
  }
  if (apiKey !== undefined) headers["x-api-key"] = apiKey;
  return { url: joinUrl(e.baseUrl, "/v1/messages"), headers, body: buildBody(body) };
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

function finishOf(reason: string | undefined): FinishKind {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}

function anthropicErrorClass(type: string | undefined): ErrorClass {
  switch (type) {
    case "authentication_error":
    case "permission_error":
      return "auth";
    case "rate_limit_error":
      return "rate_limit";
    case "overloaded_error":
      return "overloaded";
    case "api_error":
    case "timeout_error":
      return "server";
    case "billing_error":
      return "quota";
    case "invalid_request_error":
    case "not_found_error":
    case "request_too_large":
      return "invalid_request";
    default:
      return "unknown";
  }
}

type Block =
  | { kind: "text" | "thinking"; seg: Segment; signature: string }
  | { kind: "tool"; seg: Segment; initialInput: unknown }
  | { kind: "skipped" };

export function createAnthropicReducer(_req: ModelRequest, asm: ResponseAssembler): StreamReducer {
  const blocks = new Map<number, Block>();
  let startUsage: JsonRecord = {};
  let deltaUsage: JsonRecord = {};
  let finish: FinishKind | undefined;
  let ending: Ending | undefined;

  function blockStart(index: number, cb: JsonRecord): void {
    switch (stringAt(cb, "type")) {
      case "text": {
        const seg = asm.open("text");
        asm.append(seg, stringAt(cb, "text") ?? "");
        blocks.set(index, { kind: "text", seg, signature: "" });
        break;
      }
      case "thinking": {
        const seg = asm.open("thinking");
        asm.append(seg, stringAt(cb, "thinking") ?? "");
        blocks.set(index, { kind: "thinking", seg, signature: stringAt(cb, "signature") ?? "" });
        break;
      }
      case "redacted_thinking": {
        const seg = asm.open("thinking");
        asm.setFidelity(seg, { redacted_thinking: stringAt(cb, "data") ?? "" });
        blocks.set(index, { kind: "thinking", seg, signature: "" });
        break;
      }
      case "tool_use": {
        const seg = asm.open("tool_call", { id: stringAt(cb, "id") ?? "", name: stringAt(cb, "name") ?? "" });
        blocks.set(index, { kind: "tool", seg, initialInput: cb.input });
        break;
      }
      default:
        blocks.set(index, { kind: "skipped" }); // server tools and their results run on Anthropic's side
        break;
    }
  }

  function blockDelta(index: number, delta: JsonRecord): void {
    const block = blocks.get(index);
    if (block === undefined || block.kind === "skipped") return;
    switch (stringAt(delta, "type")) {
      case "text_delta":
        if (block.kind === "text") asm.append(block.seg, stringAt(delta, "text") ?? "");
        break;
      case "thinking_delta":
        if (block.kind === "thinking") asm.append(block.seg, stringAt(delta, "thinking") ?? "");
        break;
      case "signature_delta":
        if (block.kind === "thinking") block.signature += stringAt(delta, "signature") ?? "";
        break;
      case "input_json_delta":
        if (block.kind === "tool") asm.append(block.seg, stringAt(delta, "partial_json") ?? "");
        break;
      default:
        break;
    }
  }

  function blockStop(index: number): void {
    const block = blocks.get(index);
    if (block === undefined || block.kind === "skipped") return;
    if (block.kind === "thinking" && block.signature !== "") asm.setFidelity(block.seg, { signature: block.signature });
    if (block.kind === "tool" && block.seg.body === "") {
      const initial = block.initialInput;
      asm.append(block.seg, isRecord(initial) && Object.keys(initial).length > 0 ? JSON.stringify(initial) : "{}");
    }
    asm.close(block.seg);
  }

  function event(ev: JsonRecord): void {
    const index = typeof ev.index === "number" ? ev.index : -1;
    switch (stringAt(ev, "type")) {
      case "message_start":
        startUsage = recordAt(recordAt(ev, "message"), "usage");
        break;
      case "content_block_start":
        blockStart(index, recordAt(ev, "content_block"));
        break;
      case "content_block_delta":
        blockDelta(index, recordAt(ev, "delta"));
        break;
      case "content_block_stop":
        blockStop(index);
        break;
      case "message_delta": {
        const reason = stringAt(recordAt(ev, "delta"), "stop_reason");
        if (reason !== undefined) finish = finishOf(reason);
        deltaUsage = { ...deltaUsage, ...recordAt(ev, "usage") };
        break;
      }
      case "message_stop": {
        const merged = { ...startUsage, ...deltaUsage };
        ending = {
          kind: "completed",
          usage: Object.keys(merged).length > 0 ? usageFromAnthropic(merged) : undefined,
          finish: finish ?? (asm.hasToolCalls ? "tool_use" : "stop"),
        };
        break;
      }
      case "error": {
        const e = streamErrorOf(ev.error);
        ending = { kind: "failed", failure: { kind: "stream_error", errorClass: anthropicErrorClass(e.code), error: e } };
        break;
      }
      default:
        break; // ping and anything newer
    }
  }

  return {
    feed(ev: SseEvent) {
      if (ending !== undefined) return;
      const parsed = parseJson(ev.data);
      if (!parsed.ok || !isRecord(parsed.value)) {
        ending = malformed("bad JSON in a stream event");
        return;
      }
      event(parsed.value);
    },
    get ending() {
      return ending;
    },
    end() {
      return ending ?? malformed("stream ended without message_stop");
    },
  };
}

export const anthropicMessagesAdapter: ProtocolAdapter = {
  buildRequest: buildAnthropicRequest,
  createReducer: createAnthropicReducer,
};
