/**
 * The model gateway's contract: what a caller gives (an endpoint, a full history, tools) and
 * what it gets back (OmniMessage payloads as they stream, then one outcome).
 *
 * The gateway is stateless: every call carries the whole history. Statefulness (the LLM
 * context a session keeps between requests) lives in core's LLMInterface adapter.
 *
 * Contract of `streamModel` (see gateway.ts):
 * - It never throws once called. Every failure ends the generator with an outcome whose
 *   `status` is one of the six stop reasons; `errorMessage` names the provider, model and HTTP
 *   status and never contains the key.
 * - It yields partials (start → delta* → stop) and, right after each stop, the complete
 *   payload. Within one response, complete messages settle in the order thinking → text →
 *   tool_call, whatever order the provider interleaved them.
 * - Usage is reported once, in the outcome of a completed response.
 */
import type {
  CompleteModelPayload,
  ModelPayload,
  StopReason,
  TokenCounts,
  ToolDefinition,
} from "@penguin/omnimessage";

/** The four wire protocols. */
export type ClientType = "openai-chat" | "openai-responses" | "anthropic-messages" | "gemini";
export const CLIENT_TYPES: readonly ClientType[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

/** How hard the model should think. `none` turns thinking off where the protocol allows it. */
export type ThinkingLevel = "none" | "low" | "medium" | "high" | "xhigh" | "max";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["none", "low", "medium", "high", "xhigh", "max"];

/** Prices in USD per million tokens, for each bucket of TokenCounts. */
export interface Pricing {
  unit: "usd_per_mtok";
  cache_read?: number;
  cache_write?: number;
  output?: number;
}

/**
 * One model entry, resolved: everything needed to send a request. The key belongs to this
 * entry only and is only ever sent to this entry's `baseUrl`.
 */
export interface ModelEndpoint {
  provider: string;
  modelId: string;
  clientType: ClientType;
  /**
   * Protocol root, without the operation path:
   * openai-chat / openai-responses `https://api.openai.com/v1`,
   * anthropic-messages `https://api.anthropic.com` (the adapter adds `/v1/messages`),
   * gemini `https://generativelanguage.googleapis.com/v1beta`.
   */
  baseUrl: string;
  apiKey?: string;
  /** Tokens; undefined when not known. */
  contextWindow?: number;
  /** The output cap asked for, before the window clamp. */
  maxTokens?: number;
  vision?: boolean;
  fastMode?: boolean;
  pricing?: Pricing;
  /** Extra request headers (gateways that want a referer, an org id…). */
  headers?: Record<string, string>;
}

export interface ModelRequest {
  endpoint: ModelEndpoint;
  systemPrompt?: string;
  /**
   * The whole conversation, oldest first: user-side and assistant-side complete payloads. It may
   * be an earlier request's array grown by appending since (what core's adapter sends); once sent,
   * an array must never change otherwise (the wire cache takes the grown array's old part as it was).
   */
  messages: CompleteModelPayload[];
  tools: ToolDefinition[];
  thinkingLevel?: ThinkingLevel;
  signal?: AbortSignal;
  /** Time allowed until the response starts, and for any silent gap in the stream. Default 120000. */
  timeoutMs?: number;
  /** Injected for tests; by default the request goes over node:http(s), or through the proxy dispatcher when proxy variables are set. */
  fetch?: typeof fetch;
  /**
   * Called once the body is built, just before it is handed to the transport (a timing mark).
   * A hook rather than a wrapped `fetch`: wrapping would turn every request into a fetch one.
   */
  onSend?: () => void;
  /** Injected for tests: the timers behind `timeoutMs`. Defaults to the global ones. */
  timers?: Timers;
  /** Injected for tests: the clock used to read an HTTP-date `Retry-After`. Defaults to Date.now. */
  now?: () => number;
}

/** The timer seam of the gateway, so tests never wait for real: schedule returns its canceller. */
export interface Timers {
  schedule(callback: () => void, ms: number): () => void;
}

/**
 * How a completed response ended, mapped once from the provider's own finish reason:
 * `stop` (the model finished), `tool_use` (it wants tool results), `max_tokens` (the output
 * cap cut it), `refusal` (the provider declined; no content), `content_filter` (output was
 * filtered), `other` (anything else the provider said).
 */
export type FinishKind = "stop" | "tool_use" | "max_tokens" | "refusal" | "content_filter" | "other";

export interface ModelOutcome {
  status: StopReason;
  errorMessage?: string;
  /** A retry cannot help (a 400-class rejection of the request, an unsupported option). */
  permanent?: boolean;
  /**
   * The endpoint's settings are wrong (a base URL that does not parse, an unknown host, a path
   * that answers 404 or 501): always `permanent`; the fix is the model entry, not a retry.
   */
  configuration?: boolean;
  /** From a 429's `Retry-After`, when given. */
  retryAfterMs?: number;
  /** The HTTP status, when there was one. */
  httpStatus?: number;
  /** Present on a completed response. */
  usage?: TokenCounts;
  /** Present on a completed response: why the model stopped. */
  finish?: FinishKind;
}

/** What the gateway streams: model payloads only, never events or envelopes. */
export type ModelStreamItem = ModelPayload;
