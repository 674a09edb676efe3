/**
 * GatewayLLM: the stateful LLMInterface over the stateless model gateway (@penguin/models).
 *
 * It owns the model context of one session: the committed history, the system prompt and the
 * tool list. Each `streamGenerate` sends history + the new messages, streams the gateway's
 * payloads back as envelopes, and appends new messages and output to the history only when
 * the request completed; any other outcome leaves the history as it was, so the engine can
 * send the same input again.
 *
 * Tool-call ids are made session-unique here (see tool-call-ids.ts) before anything else
 * sees them. It never throws: a failure inside the gateway, or a bug in this adapter, comes
 * back as a `failed` outcome.
 */
import {
  isCompleteModel,
  modelMessage,
  type CompleteModelPayload,
  type ModelPayload,
  type OmniMessage,
  type TokenCounts,
  type ToolDefinition,
} from "@penguin/omnimessage";
import { streamModel, type ModelEndpoint, type ModelOutcome, type ThinkingLevel } from "@penguin/models";
import type { LLMInterface, LLMOutcome, StreamGenerateInput } from "../interfaces.js";
import { ToolCallIdAllocator } from "./tool-call-ids.js";

export interface GatewayLLMOptions {
  endpoint: ModelEndpoint;
  systemPrompt: string;
  tools: ToolDefinition[];
  thinkingLevel?: ThinkingLevel;
  requestTimeoutMs?: number;
  ids?: ToolCallIdAllocator;
  fetch?: typeof fetch;
}

function withSessionIds(p: ModelPayload, mapId: (id: string) => string): ModelPayload {
  if (p.type === "tool_call" || p.type === "partial_tool_call") return { ...p, tool_call_id: mapId(p.tool_call_id) };
  return p;
}

export class GatewayLLM implements LLMInterface {
  readonly #options: GatewayLLMOptions;
  readonly #ids: ToolCallIdAllocator;
  /** Complete model messages only: what goes in is filtered once, so a request need not check 100k messages again. */
  #history: OmniMessage[] = [];
  #tools: ToolDefinition[];
  #lastUsage: TokenCounts | undefined;

  constructor(options: GatewayLLMOptions) {
    this.#options = options;
    this.#tools = options.tools;
    this.#ids = options.ids ?? new ToolCallIdAllocator();
  }

  get lastUsage(): TokenCounts | undefined {
    return this.#lastUsage;
  }

  get contextWindow(): number | "unknown" {
    return this.#options.endpoint.contextWindow ?? "unknown";
  }

  get endpoint(): ModelEndpoint {
    return this.#options.endpoint;
  }

  /** The tool list is known only after MCP discovery; the engine sets it before the first request. */
  setTools(tools: ToolDefinition[]): void {
    this.#tools = tools;
  }

  setHistory(messages: OmniMessage[]): void {
    this.#history = messages.filter(isCompleteModel);
  }

  history(): readonly OmniMessage[] {
    return this.#history;
  }

  async *streamGenerate(input: StreamGenerateInput): AsyncGenerator<OmniMessage, LLMOutcome> {
    this.#lastUsage = undefined;
    const newMessages = input.newMessages.filter(isCompleteModel);
    // One pass into one array: a resumed history can hold tens of thousands of messages.
    const messages: CompleteModelPayload[] = [];
    for (const m of this.#history) messages.push(m.payload as CompleteModelPayload);
    for (const m of newMessages) messages.push(m.payload);
    const mapId = this.#ids.forResponse();
    const produced: OmniMessage[] = [];
    let outcome: ModelOutcome;
    try {
      const stream = streamModel({
        endpoint: this.#options.endpoint,
        systemPrompt: this.#options.systemPrompt,
        messages,
        tools: this.#tools,
        thinkingLevel: input.thinkingLevel ?? this.#options.thinkingLevel,
        signal: input.signal,
        timeoutMs: this.#options.requestTimeoutMs,
        fetch: this.#options.fetch,
      });
      for (;;) {
        const step = await stream.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        const m = modelMessage(withSessionIds(step.value, mapId));
        if (isCompleteModel(m)) produced.push(m);
        yield m;
      }
    } catch (error) {
      outcome = { status: input.signal?.aborted ? "aborted" : "failed", errorMessage: `model adapter error: ${String(error)}` };
    }
    if (outcome.status === "completed") {
      if (input.commit !== false) this.#history.push(...newMessages, ...produced);
      this.#lastUsage = outcome.usage;
    }
    const result: LLMOutcome = { status: outcome.status };
    if (outcome.errorMessage !== undefined) result.errorMessage = outcome.errorMessage;
    if (outcome.permanent) result.permanent = true;
    if (outcome.configuration === true) result.configuration = true;
    if (outcome.retryAfterMs !== undefined) result.retryAfterMs = outcome.retryAfterMs;
    return result;
  }
}
