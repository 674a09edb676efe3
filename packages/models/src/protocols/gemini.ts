/**
 * Gemini `streamGenerateContent`: `<baseUrl>/models/<model>:streamGenerateContent?alt=sse`,
 * key in `x-goog-api-key`.
 *
 * Fidelity: a `thoughtSignature` belongs to the part it came on and goes back on that same part.
 * The payload built from that part records it (`fidelity.thoughtSignature`): a thought, a text,
 * or a function call. A signature on an empty text part (Gemini 3 puts one at the end of a
 * plain answer) becomes its own empty text payload, so it can be sent back. Thought parts
 * (`thought: true`) are thinking; they are sent back only when signed. If a model turn that
 * calls a function carries no signature at all (history from another provider), the first call
 * gets Google's documented `skip_thought_signature_validator` value, which Gemini 3 requires.
 *
 * Function calls have no ids on this wire: we mint them, and answer tool results by name
 * (`functionResponse`). Streamed arguments (Vertex: `functionCall.willContinue`,
 * `partialArgs[{jsonPath, stringValue|numberValue|boolValue|nullValue, willContinue}]`, and an
 * empty `functionCall: {}` closing the call) are assembled into one complete JSON object.
 *
 * Stream: no per-event type and no sentinel. Usage snapshots are cumulative (the last one with
 * counts wins; Vertex sends count-less ones in between); the chunk with `finishReason` ends
 * the response. `MALFORMED_FUNCTION_CALL` is `malformed`; an `error` object is a provider error;
 * a body that ends without a finish reason is `malformed`.
 */
import type { ResponseAssembler, Segment } from "../assembler.js";
import { streamErrorOf, type ErrorClass } from "../errors.js";
import { fidelityString, parseDataUrl, toolNamesById, toRuns, type AssistantItem, type Run, type UserItem } from "../history.js";
import type { WireRequest } from "../http.js";
import { mintCallId } from "../ids.js";
import { arrayAt, isRecord, parseJson, recordAt, stringAt, type JsonRecord } from "../json.js";
import { outputCap, tokensForLength } from "../output-cap.js";
import type { SseEvent } from "../sse.js";
import { outputForWire, serializedLength } from "../wire-body.js";
import { buildBody, EncodedOnce, ListCache, wireCacheBypassed, type RunContext } from "../wire-cache.js";
import { geminiThinking } from "../thinking.js";
import type { FinishKind, ModelRequest } from "../types.js";
import { joinUrl } from "../url.js";
import { usageFromGemini } from "../usage.js";
import { malformed, type Ending, type ProtocolAdapter, type StreamReducer } from "./adapter.js";

/** Google's documented placeholder for a function call whose signature was never recorded. */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

function imagePart(url: string): JsonRecord {
  const data = parseDataUrl(url);
  if (data !== undefined) return { inlineData: { mimeType: data.mimeType, data: data.data } };
  return { text: `[image: ${url}]` };
}

function userParts(items: UserItem[], nameOf: (toolCallId: string) => string | undefined): JsonRecord[] {
  const out: JsonRecord[] = [];
  const trailing: JsonRecord[] = [];
  for (const item of items) {
    switch (item.type) {
      case "tool_call_output": {
        const response = item.stop_reason === "failed" ? { error: outputForWire(item) } : { output: outputForWire(item) };
        out.push({ functionResponse: { name: nameOf(item.tool_call_id) ?? "unknown", response } });
        for (const url of item.images ?? []) trailing.push(imagePart(url));
        break;
      }
      case "text":
        if (item.text !== "") trailing.push({ text: item.text });
        break;
      case "image_url":
        trailing.push(imagePart(item.image_url));
        break;
      case "inline_data":
        trailing.push({ inlineData: { mimeType: item.mime_type, data: item.data } });
        break;
    }
  }
  return [...out, ...trailing];
}

function callArgs(args: string): JsonRecord {
  const parsed = parseJson(args);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : {};
}

function modelParts(items: AssistantItem[]): JsonRecord[] {
  const out: JsonRecord[] = [];
  let signed = false;
  for (const item of items) {
    switch (item.type) {
      case "thinking": {
        const sig = fidelityString(item.fidelity, "thoughtSignature");
        if (sig === undefined) break;
        out.push({ text: item.thinking, thought: true, thoughtSignature: sig });
        signed = true;
        break;
      }
      case "text": {
        const sig = fidelityString(item.fidelity, "thoughtSignature");
        if (item.text === "" && sig === undefined) break;
        const part: JsonRecord = { text: item.text };
        if (sig !== undefined) {
          part.thoughtSignature = sig;
          signed = true;
        }
        out.push(part);
        break;
      }
      case "tool_call": {
        const sig = fidelityString(item.fidelity, "thoughtSignature");
        const part: JsonRecord = { functionCall: { name: item.name, args: callArgs(item.arguments) } };
        if (sig !== undefined) {
          part.thoughtSignature = sig;
          signed = true;
        }
        out.push(part);
        break;
      }
      case "inline_data":
        out.push({ inlineData: { mimeType: item.mime_type, data: item.data } });
        break;
      case "inline_thinking":
        break;
    }
  }
  if (!signed) {
    const firstCall = out.find((p) => p.functionCall !== undefined);
    if (firstCall !== undefined) firstCall.thoughtSignature = SKIP_SIGNATURE;
  }
  return out;
}

function runParts(run: Run, context: RunContext): JsonRecord[] {
  return run.side === "user" ? userParts(run.items, context.nameOf) : modelParts(run.items);
}

/** The history as Gemini `contents`, encoded afresh: what the cached list below must equal. */
export function geminiContents(req: ModelRequest): JsonRecord[] {
  const names = toolNamesById(req.messages);
  const context: RunContext = { nameOf: (id) => names.get(id) };
  const out: { role: string; parts: JsonRecord[] }[] = [];
  for (const run of toRuns(req.messages)) {
    const role = run.side === "user" ? "user" : "model";
    const parts = runParts(run, context);
    if (parts.length === 0) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  }
  return out;
}

const geminiSystem = new EncodedOnce();
const geminiTools = new EncodedOnce();

/** Runs of one side share a content entry; a tool output is answered by its call's name, looked up across the history. */
const geminiLists = new ListCache({
  group: { open: { user: '{"role":"user","parts":[', assistant: '{"role":"model","parts":[' }, close: "]}" },
  readsToolNames: true,
  elementsOf: runParts,
});

export function buildGeminiRequest(req: ModelRequest, apiKey: string | undefined): WireRequest {
  const e = req.endpoint;
  const contents = wireCacheBypassed() ? geminiContents(req) : geminiLists.list(req.messages);
  const body: JsonRecord = { contents };
  const prompt = req.systemPrompt;
  if (prompt !== undefined && prompt !== "") body.systemInstruction = geminiSystem.get(prompt, () => ({ parts: [{ text: prompt }] }));
  if (req.tools.length > 0) {
    body.tools = geminiTools.get(req.tools, () => [
      {
        functionDeclarations: req.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJsonSchema: t.parameters ?? { type: "object", properties: {} },
        })),
      },
    ]);
  }
  const generationConfig: JsonRecord = { thinkingConfig: geminiThinking(req.thinkingLevel, e.modelId) };
  const cap = outputCap(e, () => tokensForLength(serializedLength(body)));
  if (cap !== undefined) generationConfig.maxOutputTokens = cap;
  body.generationConfig = generationConfig;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(e.headers ?? {}),
  };
  if (apiKey !== undefined) headers["x-goog-api-key"] = apiKey;
  const url = `${joinUrl(e.baseUrl, `/models/${e.modelId}`)}:streamGenerateContent?alt=sse`;
  return { url, headers, body: buildBody(body) };
}

// ---------------------------------------------------------------------------------------------
// Arguments streamed by JSON path
// ---------------------------------------------------------------------------------------------

type PathKey = string | number;

/** `$.a.b[0]["c d"]` → ["a", "b", 0, "c d"]; undefined when unreadable. */
export function parseJsonPath(path: string): PathKey[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const keys: PathKey[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === ".") {
      const m = /^[^.[\]]+/.exec(path.slice(i + 1));
      if (m === null) return undefined;
      keys.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === "[") {
      const m = /^\[(?:(\d+)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(path.slice(i));
      if (m === null) return undefined;
      if (m[1] !== undefined) keys.push(Number(m[1]));
      else keys.push((m[2] ?? m[3] ?? "").replace(/\\(.)/g, "$1"));
      i += m[0].length;
    } else return undefined;
  }
  return keys;
}

function getAt(root: JsonRecord, keys: PathKey[]): unknown {
  let cur: unknown = root;
  for (const k of keys) {
    if (typeof k === "number") cur = Array.isArray(cur) ? cur[k] : undefined;
    else cur = isRecord(cur) ? cur[k] : undefined;
  }
  return cur;
}

function setAt(root: JsonRecord, keys: PathKey[], value: unknown): void {
  let cur: JsonRecord | unknown[] = root;
  keys.forEach((k, n) => {
    const last = n === keys.length - 1;
    const nextKey = keys[n + 1];
    const fresh = (): JsonRecord | unknown[] => (typeof nextKey === "number" ? [] : {});
    if (Array.isArray(cur)) {
      if (typeof k !== "number") return;
      if (last) cur[k] = value;
      else {
        const child: unknown = cur[k];
        const next = isRecord(child) || Array.isArray(child) ? child : fresh();
        cur[k] = next;
        cur = next;
      }
    } else {
      const key = String(k);
      if (last) cur[key] = value;
      else {
        const child: unknown = cur[key];
        const next = isRecord(child) || Array.isArray(child) ? child : fresh();
        cur[key] = next;
        cur = next;
      }
    }
  });
}

interface StreamingCall {
  seg: Segment;
  args: JsonRecord;
  /** Paths whose string value is still being streamed. */
  open: Set<string>;
}

function applyPartialArgs(call: StreamingCall, partials: unknown[]): void {
  for (const p of partials) {
    if (!isRecord(p)) continue;
    const path = stringAt(p, "jsonPath");
    const keys = path === undefined ? undefined : parseJsonPath(path);
    if (path === undefined || keys === undefined || keys.length === 0) continue;
    const more = p.willContinue === true;
    if (typeof p.stringValue === "string") {
      const prev = getAt(call.args, keys);
      const joined = call.open.has(path) && typeof prev === "string" ? prev + p.stringValue : p.stringValue;
      setAt(call.args, keys, joined);
      if (more) call.open.add(path);
      else call.open.delete(path);
    } else if (typeof p.numberValue === "number") setAt(call.args, keys, p.numberValue);
    else if (typeof p.boolValue === "boolean") setAt(call.args, keys, p.boolValue);
    else if ("nullValue" in p) setAt(call.args, keys, null);
  }
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

function geminiErrorClass(status: string | undefined): ErrorClass {
  switch (status) {
    case "UNAUTHENTICATED":
    case "PERMISSION_DENIED":
      return "auth";
    case "RESOURCE_EXHAUSTED":
      return "rate_limit";
    case "UNAVAILABLE":
      return "overloaded";
    case "INTERNAL":
    case "DEADLINE_EXCEEDED":
      return "server";
    case "INVALID_ARGUMENT":
    case "FAILED_PRECONDITION":
    case "NOT_FOUND":
      return "invalid_request";
    default:
      return "unknown";
  }
}

type FinishVerdict = { kind: "finish"; finish: FinishKind } | { kind: "malformed" };

function finishOf(reason: string, hasToolCalls: boolean): FinishVerdict {
  switch (reason) {
    case "STOP":
      return { kind: "finish", finish: hasToolCalls ? "tool_use" : "stop" };
    case "MAX_TOKENS":
      return { kind: "finish", finish: "max_tokens" };
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return { kind: "finish", finish: "content_filter" };
    case "MALFORMED_FUNCTION_CALL":
    case "UNEXPECTED_TOOL_CALL":
      return { kind: "malformed" };
    default:
      return { kind: "finish", finish: "other" };
  }
}

export function createGeminiReducer(_req: ModelRequest, asm: ResponseAssembler): StreamReducer {
  let thought: Segment | undefined;
  let text: Segment | undefined;
  let call: StreamingCall | undefined;
  let usage: unknown;
  let ending: Ending | undefined;

  function closeThought(): void {
    if (thought !== undefined) asm.close(thought);
    thought = undefined;
  }
  function closeText(): void {
    if (text !== undefined) asm.close(text);
    text = undefined;
  }
  function finishCall(): void {
    if (call === undefined) return;
    asm.append(call.seg, JSON.stringify(call.args));
    asm.close(call.seg);
    call = undefined;
  }

  function onThought(value: string, sig: string | undefined): void {
    closeText();
    finishCall();
    thought ??= asm.open("thinking");
    asm.append(thought, value);
    if (sig !== undefined) {
      asm.setFidelity(thought, { thoughtSignature: sig });
      closeThought();
    }
  }

  function onText(value: string, sig: string | undefined): void {
    closeThought();
    finishCall();
    if (value === "" && sig === undefined) return;
    if (value === "") closeText(); // a signature-only part is a payload of its own
    text ??= asm.open("text");
    asm.append(text, value);
    if (sig !== undefined) {
      asm.setFidelity(text, { thoughtSignature: sig });
      closeText();
    }
  }

  function onFunctionCall(fc: JsonRecord, sig: string | undefined): void {
    closeThought();
    closeText();
    const name = stringAt(fc, "name");
    const partials = arrayAt(fc, "partialArgs");
    if (name !== undefined && name !== "") {
      finishCall();
      const seg = asm.open("tool_call", { id: mintCallId("call"), name });
      if (sig !== undefined) asm.setFidelity(seg, { thoughtSignature: sig });
      const args = isRecord(fc.args) ? fc.args : {};
      if (fc.willContinue === true) {
        call = { seg, args: { ...args }, open: new Set() };
        applyPartialArgs(call, partials);
      } else {
        asm.append(seg, JSON.stringify(args));
        asm.close(seg);
      }
      return;
    }
    if (call === undefined) return;
    if (sig !== undefined) asm.setFidelity(call.seg, { thoughtSignature: sig });
    applyPartialArgs(call, partials);
    if (partials.length === 0 && fc.willContinue !== true) finishCall(); // the `functionCall: {}` terminator
  }

  function chunk(data: JsonRecord): void {
    if (data.error !== undefined) {
      const e = streamErrorOf(data.error);
      ending = { kind: "failed", failure: { kind: "stream_error", errorClass: geminiErrorClass(stringAt(data.error, "status")), error: e } };
      return;
    }
    const u = data.usageMetadata;
    if (isRecord(u) && (u.promptTokenCount !== undefined || u.candidatesTokenCount !== undefined || u.totalTokenCount !== undefined)) {
      usage = u;
    }
    const candidate = arrayAt(data, "candidates")[0];
    if (candidate === undefined) {
      const blocked = stringAt(recordAt(data, "promptFeedback"), "blockReason");
      if (blocked !== undefined) {
        ending = { kind: "completed", usage: usage === undefined ? undefined : usageFromGemini(usage), finish: "refusal" };
      }
      return;
    }
    for (const part of arrayAt(recordAt(candidate, "content"), "parts")) {
      if (!isRecord(part)) continue;
      const sig = stringAt(part, "thoughtSignature");
      if (isRecord(part.functionCall)) onFunctionCall(part.functionCall, sig);
      else if (part.thought === true) onThought(stringAt(part, "text") ?? "", sig);
      else if (typeof part.text === "string") onText(part.text, sig);
      else if (sig !== undefined) onText("", sig);
    }
    const reason = stringAt(candidate, "finishReason");
    if (reason === undefined) return;
    finishCall();
    const verdict = finishOf(reason, asm.hasToolCalls);
    ending =
      verdict.kind === "malformed"
        ? malformed(`finish reason ${reason}`)
        : { kind: "completed", usage: usage === undefined ? undefined : usageFromGemini(usage), finish: verdict.finish };
  }

  return {
    feed(ev: SseEvent) {
      if (ending !== undefined) return;
      const parsed = parseJson(ev.data);
      if (!parsed.ok) {
        ending = malformed("bad JSON in a stream event");
        return;
      }
      const value = Array.isArray(parsed.value) ? parsed.value[0] : parsed.value;
      if (!isRecord(value)) {
        ending = malformed("a stream event is not a JSON object");
        return;
      }
      chunk(value);
    },
    get ending() {
      return ending;
    },
    end() {
      return ending ?? malformed("stream ended without a finishReason");
    },
  };
}

export const geminiAdapter: ProtocolAdapter = {
  buildRequest: buildGeminiRequest,
  createReducer: createGeminiReducer,
};
