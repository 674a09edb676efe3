/**
 * GatewayLLM: the LLMInterface over the model gateway (@penguin/models).
 *
 * It holds what a session's requests share and no context: the endpoint, the system prompt
 * and the tool list. Each `streamGenerate` sends the history it is given (the session fold's
 * committed context) + the new messages and streams the gateway's payloads back as envelopes.
 * What a completed request commits becomes context by being recorded and folded, never here,
 * so there is one copy of the model context: the fold's.
 *
 * The request's message list is built from the fold's Sequence, reading each envelope's
 * payload only: a tool output a resume keeps as JSON text stays undecoded (omnimessage
 * raw-output.ts), and the wire encoders splice its kept bytes. The request's list is one array
 * per history that is only ever appended to: the history's payloads, then the last request's
 * new messages. When the new history is the old one with messages appended (the same nodes,
 * `itemsAfter`) beginning with those new messages (the usual case; a retry sends them again),
 * only what is missing is pushed, and the gateway gets the same array, grown: neither this
 * adapter nor the wire cache (packages/models wire-cache.ts) walks or copies a long session's
 * context per turn. Any other history (a compaction, a rewind, an edit) gets a new array; the
 * old one is never changed again.
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
import type { Sequence } from "@penguin/trace";
import type { LLMInterface, LLMOutcome, StreamGenerateInput } from "../interfaces.js";
import { ToolCallIdAllocator } from "./tool-call-ids.js";
import { markToolTurn } from "../engine/turn-timing.js";

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
  #tools: ToolDefinition[];
  #lastUsage: TokenCounts | undefined;
  /** The last request's history and list: `list` holds the history's `committed` payloads, then that request's new messages. */
  #last: { history: Sequence<OmniMessage>; list: CompleteModelPayload[]; committed: number } | undefined;

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

  /**
   * The history's payloads, oldest first, then `added`: the last request's array grown when it
   * can be (see the file header), else a new one. A resumed history can hold tens of thousands
   * of messages; the fold's history holds complete model messages only (evolve commits nothing
   * else).
   */
  #messagesFor(history: Sequence<OmniMessage>, added: readonly CompleteModelPayload[]): CompleteModelPayload[] {
    const last = this.#last;
    const appended = last === undefined ? undefined : history.itemsAfter(last.history);
    if (last !== undefined && appended !== undefined) {
      const wanted: CompleteModelPayload[] = [];
      for (const m of appended) wanted.push(m.payload as CompleteModelPayload);
      for (const p of added) wanted.push(p);
      const { list, committed } = last;
      const pending = list.length - committed;
      let fits = wanted.length >= pending;
      for (let i = 0; fits && i < pending; i++) fits = wanted[i] === list[committed + i];
      if (fits) {
        for (let i = pending; i < wanted.length; i++) list.push(wanted[i] as CompleteModelPayload);
        this.#last = { history, list, committed: committed + appended.length };
        return list;
      }
    }
    const list = history.mapToArray((m) => m.payload as CompleteModelPayload);
    const committed = list.length;
    for (const p of added) list.push(p);
    this.#last = { history, list, committed };
    return list;
  }

  async *streamGenerate(input: StreamGenerateInput): AsyncGenerator<OmniMessage, LLMOutcome> {
    this.#lastUsage = undefined;
    const added: CompleteModelPayload[] = [];
    for (const m of input.newMessages) if (isCompleteModel(m)) added.push(m.payload);
    // Read while the request is built, before anything here awaits; only appended to after.
    const messages = this.#messagesFor(input.history, added);
    const mapId = this.#ids.forResponse();
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
        // Only a fetch given in the options: without one the gateway's node:http transport is
        // used, which spares a one-turn CLI run compiling undici (~25–35 ms).
        ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
        onSend: () => markToolTurn("request-sent"),
      });
      for (;;) {
        const step = await stream.next();
        if (step.done) {
          markToolTurn("request-end");
          outcome = step.value;
          break;
        }
        yield modelMessage(withSessionIds(step.value, mapId));
      }
    } catch (error) {
      outcome = { status: input.signal?.aborted ? "aborted" : "failed", errorMessage: `model adapter error: ${String(error)}` };
    }
    if (outcome.status === "completed") this.#lastUsage = outcome.usage;
    const result: LLMOutcome = { status: outcome.status };
    if (outcome.errorMessage !== undefined) result.errorMessage = outcome.errorMessage;
    if (outcome.permanent) result.permanent = true;
    if (outcome.configuration === true) result.configuration = true;
    if (outcome.retryAfterMs !== undefined) result.retryAfterMs = outcome.retryAfterMs;
    return result;
  }
}

