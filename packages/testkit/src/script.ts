/**
 * The testkit's script language: what the fake model answers, request by request.
 *
 * A script is a queue of steps; each incoming model request consumes one step. A step is a
 * scripted turn (thinking, text, tool calls, usage, optional fault), a recorded fixture to
 * replay, or a function of the recorded request that returns either (context-aware answers).
 * The same script plays over every wire protocol: the server renders it in the protocol of
 * the endpoint that was called.
 */

export type WireProtocol = "openai-chat" | "openai-responses" | "anthropic-messages" | "gemini";
export const WIRE_PROTOCOLS: readonly WireProtocol[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

export interface ScriptedToolCall {
  name: string;
  /** A JSON string is sent as-is (even if invalid, to test bad arguments); objects are stringified. */
  arguments: string | Record<string, unknown>;
  /** Provider call id; generated per protocol when absent (Gemini sends none). */
  id?: string;
}

/** Token usage to report. `input` counts the whole prompt, `cached` the part served from cache. */
export interface ScriptedUsage {
  input?: number;
  cached?: number;
  output?: number;
}

/** A way to break the response, to exercise the client's error classes. */
export type Fault =
  /** Answer with this HTTP status and body (e.g. 500, 401, 429 with Retry-After). */
  | { kind: "http"; status: number; body?: string; retryAfter?: string }
  /** Send the headers and the first `afterEvents` events, then go silent forever. */
  | { kind: "hang"; afterEvents?: number }
  /** Send `afterEvents` events, then destroy the socket. */
  | { kind: "reset"; afterEvents?: number }
  /** Send `afterEvents` events, then a data line that is not JSON, then end. */
  | { kind: "malformed"; afterEvents?: number }
  /** Send `afterEvents` events, then end cleanly without the protocol's terminal event. */
  | { kind: "truncate"; afterEvents?: number };

export interface ScriptedTurn {
  thinking?: string;
  /** Opaque signature attached to the thinking, when the protocol carries one. */
  thinkingSignature?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to an estimate from the request and response sizes (about 4 chars a token). */
  usage?: ScriptedUsage;
  /** Characters per streamed delta (default 8). */
  chunkSize?: number;
  /** Pause between SSE events, in ms (default 0). */
  delayMs?: number;
  fault?: Fault;
}

/** Replay a recorded stream from `fixtures/provider-streams/` as a real SSE response. */
export interface FixtureReplay {
  /** Path of a `*.chunks.txt` file. */
  fixture: string;
  /** Defaults to the fixture's folder name. */
  protocol?: WireProtocol;
  /**
   * Write the body in pieces split at these byte offsets, or at `count` random offsets drawn
   * from `seed`; default: one write per SSE event.
   */
  split?: number[] | { seed: number; count: number };
  /** Cut the body after this many bytes and end the response (truncated-stream tests). */
  truncateAt?: number;
  /** Overwrite bytes at these offsets with garbage (corrupted-stream tests). */
  corrupt?: { seed: number; count: number };
}

/** One normalised message of a recorded request, the same shape whatever the protocol. */
export interface NormalizedMessage {
  role: "system" | "user" | "assistant" | "tool";
  kind: "text" | "thinking" | "tool_call" | "tool_result" | "image";
  text?: string;
  name?: string;
  arguments?: string;
  toolCallId?: string;
}

export interface RecordedRequest {
  /** 0-based order of arrival. */
  index: number;
  protocol: WireProtocol;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Exactly the bytes received. */
  rawBody: string;
  /** The parsed JSON body (undefined if it did not parse). */
  body: unknown;
  model: string | undefined;
  system: string | undefined;
  messages: NormalizedMessage[];
  toolNames: string[];
}

export type ScriptStep = ScriptedTurn | FixtureReplay | ((request: RecordedRequest) => ScriptedTurn | FixtureReplay);
