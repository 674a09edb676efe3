/**
 * OpenAI Chat Completions, for any compatible server: `<baseUrl>/chat/completions`,
 * `Authorization: Bearer`, `stream: true` with `stream_options.include_usage`.
 *
 * Request: the history becomes `system` / `user` / `assistant` / `tool` messages. Reasoning is
 * sent back on the assistant message in the field it arrived in (recorded as
 * `fidelity.reasoning_field`: `reasoning_content` for DeepSeek/vLLM, `reasoning` for OpenRouter,
 * `content_thinking` for Mistral's typed thinking parts), because DeepSeek requires it on
 * tool-call turns; thinking from other providers is not sent.
 *
 * Stream quirks handled by the reducer:
 * - reasoning as `reasoning_content`, `reasoning`, or typed `thinking` parts inside an array
 *   `content` (Mistral), possibly mixed with a text part in one chunk;
 * - tool calls keyed by `index`; a delta without `index` uses its position in the array
 *   (Moonshot starts parallel calls that way), later deltas may come in any index order, and
 *   `tool_calls: []` creates nothing;
 * - usage in a final `choices: []` chunk, on the finish chunk, or inside the choice; the last
 *   snapshot wins;
 * - the stream ends at `data: [DONE]`; a body that ends after a `finish_reason` without the
 *   sentinel is still complete, one that ends before any finish is `malformed`;
 * - an `error` object in a chunk ends the response as a provider error.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import type { ResponseAssembler, Segment } from "../assembler.js";
import { streamErrorOf, type ErrorClass } from "../errors.js";
import { fastModeFor } from "../fast-mode.js";
import { fidelityString, parseDataUrl, toRuns, type AssistantItem, type Run, type UserItem } from "../history.js";
import type { WireRequest } from "../http.js";
import { mintCallId } from "../ids.js";
import { arrayAt, isRecord, numberAt, parseJson, recordAt, stringAt, type JsonRecord } from "../json.js";
import { outputCap, tokensForLength } from "../output-cap.js";
import type { SseEvent } from "../sse.js";
import { outputForWire, serializedLength, type EncodedJson } from "../wire-body.js";
import { buildBody, EncodedOnce, ListCache, wireCacheBypassed } from "../wire-cache.js";
import { chatThinking } from "../thinking.js";
import type { FinishKind, ModelRequest } from "../types.js";
import { hostOf, joinUrl } from "../url.js";
import { usageFromChat } from "../usage.js";
import { malformed, type Ending, type ProtocolAdapter, type StreamReducer } from "./adapter.js";

/** The assistant-message fields reasoning can travel in. */
export type ReasoningField = "reasoning_content" | "reasoning" | "content_thinking";

function isReasoningField(v: string | undefined): v is ReasoningField {
  return v === "reasoning_content" || v === "reasoning" || v === "content_thinking";
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

type ChatPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

function userPart(item: UserItem): ChatPart | undefined {
  switch (item.type) {
    case "text":
      return item.text === "" ? undefined : { type: "text", text: item.text };
    case "image_url":
      return { type: "image_url", image_url: { url: item.image_url } };
    case "inline_data":
      return item.mime_type.startsWith("image/")
        ? { type: "image_url", image_url: { url: `data:${item.mime_type};base64,${item.data}` } }
        : undefined;
    case "tool_call_output":
      return undefined;
  }
}

function userMessages(items: UserItem[]): JsonRecord[] {
  const out: JsonRecord[] = [];
  const parts: ChatPart[] = [];
  for (const item of items) {
    if (item.type === "tool_call_output") {
      out.push({ role: "tool", tool_call_id: item.tool_call_id, content: outputForWire(item) });
      for (const url of item.images ?? []) {
        if (parseDataUrl(url) !== undefined || url.startsWith("http")) parts.push({ type: "image_url", image_url: { url } });
      }
      continue;
    }
    const part = userPart(item);
    if (part !== undefined) parts.push(part);
  }
  if (parts.length > 0) {
    const only = parts.length === 1 ? parts[0] : undefined;
    out.push({ role: "user", content: only !== undefined && only.type === "text" ? only.text : parts });
  }
  return out;
}

function assistantMessage(items: AssistantItem[]): JsonRecord | undefined {
  let text = "";
  const reasoning = new Map<ReasoningField, string>();
  const toolCalls: JsonRecord[] = [];
  for (const item of items) {
    switch (item.type) {
      case "text":
        text += item.text;
        break;
      case "thinking": {
        const field = fidelityString(item.fidelity, "reasoning_field");
        if (isReasoningField(field)) reasoning.set(field, (reasoning.get(field) ?? "") + item.thinking);
        break;
      }
      case "tool_call":
        toolCalls.push({
          id: item.tool_call_id,
          type: "function",
          function: { name: item.name, arguments: item.arguments },
        });
        break;
      case "inline_thinking":
      case "inline_data":
        break;
    }
  }
  if (text === "" && toolCalls.length === 0 && reasoning.size === 0) return undefined;
  const msg: JsonRecord = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text };
  const typed = reasoning.get("content_thinking");
  if (typed !== undefined) {
    const parts: JsonRecord[] = [{ type: "thinking", thinking: [{ type: "text", text: typed }] }];
    if (text !== "") parts.push({ type: "text", text });
    msg.content = parts;
  }
  const rc = reasoning.get("reasoning_content");
  if (rc !== undefined) msg.reasoning_content = rc;
  const r = reasoning.get("reasoning");
  if (r !== undefined) msg.reasoning = r;
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  return msg;
}

function runMessages(run: Run): JsonRecord[] {
  if (run.side === "user") return userMessages(run.items);
  const msg = assistantMessage(run.items);
  return msg === undefined ? [] : [msg];
}

/** The history as chat messages (system first), encoded afresh: what the cached list below must equal. */
export function chatMessages(req: ModelRequest): JsonRecord[] {
  const out: JsonRecord[] = [];
  if (req.systemPrompt !== undefined && req.systemPrompt !== "") out.push({ role: "system", content: req.systemPrompt });
  for (const run of toRuns(req.messages)) out.push(...runMessages(run));
  return out;
}

const chatLists = new ListCache({ elementsOf: runMessages });
const chatTools = new EncodedOnce();
/** The system message's text for the last system prompt seen (the same string request after request). */
let systemMessage = { prompt: "", text: "" };

/** The history as chat messages (system first), each run encoded once and kept (wire-cache.ts). */
export function encodedChatMessages(req: ModelRequest): EncodedJson {
  const prompt = req.systemPrompt ?? "";
  if (systemMessage.prompt !== prompt) systemMessage = { prompt, text: prompt === "" ? "" : JSON.stringify({ role: "system", content: prompt }) };
  return chatLists.list(req.messages, systemMessage.text);
}

export function buildChatRequest(req: ModelRequest, apiKey: string | undefined): WireRequest {
  const e = req.endpoint;
  const messages = wireCacheBypassed() ? chatMessages(req) : encodedChatMessages(req);
  const tools = chatTools.get(req.tools, () =>
    req.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters ?? { type: "object", properties: {} } },
    })),
  );
  const body: JsonRecord = {
    model: e.modelId,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) body.tools = tools;
  Object.assign(body, chatThinking(req.thinkingLevel, e));
  const cap = outputCap(e, () => tokensForLength(serializedLength(messages) + serializedLength(tools)));
  if (cap !== undefined) body[hostOf(e.baseUrl) === "api.openai.com" ? "max_completion_tokens" : "max_tokens"] = cap;
  const fast = e.fastMode === true ? fastModeFor(e) : undefined;
  if (fast?.supported === true) Object.assign(body, fast.body);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(e.headers ?? {}),
  };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  return { url: joinUrl(e.baseUrl, "/chat/completions"), headers, body: buildBody(body) };
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

function finishOf(reason: string): FinishKind {
  switch (reason) {
    case "stop":
    case "end_turn":
      return "stop";
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "content_filter";
    default:
      return "other";
  }
}

/** Chat servers put an HTTP-like status or an OpenAI error code on in-stream errors. */
function chatErrorClass(err: unknown): ErrorClass {
  const status = numberAt(err, "code") ?? numberAt(err, "status");
  if (status !== undefined) {
    if (status === 401 || status === 403) return "auth";
    if (status === 429) return "rate_limit";
    if (status >= 500) return "server";
    if (status >= 400) return "invalid_request";
  }
  switch (stringAt(err, "code") ?? stringAt(err, "type")) {
    case "invalid_api_key":
    case "authentication_error":
      return "auth";
    case "rate_limit_exceeded":
      return "rate_limit";
    case "insufficient_quota":
      return "quota";
    case "invalid_request_error":
    case "context_length_exceeded":
      return "invalid_request";
    case "server_error":
      return "server";
    default:
      return "unknown";
  }
}

export function createChatReducer(_req: ModelRequest, asm: ResponseAssembler): StreamReducer {
  let thinking: Segment | undefined;
  let text: Segment | undefined;
  const calls = new Map<number, Segment>();
  let finish: FinishKind | undefined;
  let usage: TokenCounts | undefined;
  let ending: Ending | undefined;

  const completed = (): Ending => ({
    kind: "completed",
    usage,
    finish: finish ?? (asm.hasToolCalls ? "tool_use" : "stop"),
  });

  function think(delta: string, field: ReasoningField): void {
    if (delta === "") return;
    if (thinking === undefined) {
      thinking = asm.open("thinking");
      asm.setFidelity(thinking, { reasoning_field: field });
    }
    asm.append(thinking, delta);
  }

  function endThinking(): void {
    if (thinking !== undefined) asm.close(thinking);
    thinking = undefined;
  }

  function say(delta: string): void {
    if (delta === "") return;
    endThinking();
    text ??= asm.open("text");
    asm.append(text, delta);
  }

  function content(value: unknown): void {
    if (typeof value === "string") {
      say(value);
      return;
    }
    if (!Array.isArray(value)) return;
    for (const part of value) {
      const kind = stringAt(part, "type");
      if (kind === "text") say(stringAt(part, "text") ?? "");
      else if (kind === "thinking") {
        const inner = isRecord(part) ? part.thinking : undefined;
        if (typeof inner === "string") think(inner, "content_thinking");
        else for (const t of Array.isArray(inner) ? inner : []) think(stringAt(t, "text") ?? "", "content_thinking");
      }
    }
  }

  function toolCalls(list: unknown[]): void {
    list.forEach((item, position) => {
      const index = numberAt(item, "index") ?? position;
      const fn = recordAt(item, "function");
      const id = stringAt(item, "id");
      const name = stringAt(fn, "name");
      const args = stringAt(fn, "arguments") ?? "";
      let seg = calls.get(index);
      if (seg !== undefined && id !== undefined && id !== "" && id !== seg.id && name !== undefined && name !== "") {
        asm.close(seg); // a server that reuses an index for the next call
        seg = undefined;
      }
      if (seg === undefined) {
        if ((name ?? "") === "" && (id ?? "") === "" && args === "") return;
        endThinking();
        seg = asm.open("tool_call", { id: id !== undefined && id !== "" ? id : mintCallId("call"), name: name ?? "" });
        calls.set(index, seg);
      }
      asm.append(seg, args);
    });
  }

  function chunk(data: unknown): void {
    if (!isRecord(data)) {
      ending = malformed("a stream event is not a JSON object");
      return;
    }
    if (data.error !== undefined && data.error !== null) {
      ending = { kind: "failed", failure: { kind: "stream_error", errorClass: chatErrorClass(data.error), error: streamErrorOf(data.error) } };
      return;
    }
    if (isRecord(data.usage)) usage = usageFromChat(data.usage);
    const choice = arrayAt(data, "choices")[0];
    if (!isRecord(choice)) return;
    if (isRecord(choice.usage)) usage = usageFromChat(choice.usage);
    const delta = recordAt(choice, "delta");
    think(stringAt(delta, "reasoning_content") ?? "", "reasoning_content");
    think(stringAt(delta, "reasoning") ?? "", "reasoning");
    content(delta.content);
    toolCalls(arrayAt(delta, "tool_calls"));
    const reason = stringAt(choice, "finish_reason");
    if (reason !== undefined) finish = finishOf(reason);
  }

  return {
    feed(event: SseEvent) {
      if (ending !== undefined) return;
      if (event.data.trim() === "[DONE]") {
        ending = completed();
        return;
      }
      const parsed = parseJson(event.data);
      if (!parsed.ok) {
        ending = malformed("bad JSON in a stream event");
        return;
      }
      chunk(parsed.value);
    },
    get ending() {
      return ending;
    },
    end() {
      if (ending !== undefined) return ending;
      return finish !== undefined ? completed() : malformed("stream ended without [DONE] or a finish_reason");
    },
  };
}

export const openaiChat: ProtocolAdapter = {
  buildRequest: buildChatRequest,
  createReducer: createChatReducer,
};
