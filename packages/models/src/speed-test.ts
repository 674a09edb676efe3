/**
 * Connectivity and speed test: one small real request through `streamModel`.
 *
 * `ttftMs` is the time from sending to the first streamed token (text or thinking, whichever
 * comes first). With `speed: true` the prompt asks for a longer answer and `tps` is output
 * tokens per second after the first token (the provider's output count when reported, else an
 * estimate from the characters received). The clock is injectable so tests are exact; the
 * default is `performance.now`. The output cap is kept small (1024) so a test costs little.
 */
import type { ModelPayload, StopReason } from "@penguin/omnimessage";
import { streamModel } from "./gateway.js";
import type { FetchFn } from "./http.js";
import { estimateTokens } from "./output-cap.js";
import type { ModelEndpoint, Timers } from "./types.js";

export interface TestModelOptions {
  speed?: boolean;
  fetch?: FetchFn;
  /** Milliseconds; default `performance.now`. */
  now?: () => number;
  timeoutMs?: number;
  timers?: Timers;
  signal?: AbortSignal;
}

export interface TestModelResult {
  ok: boolean;
  /** How the request ended. */
  status: StopReason;
  ttftMs?: number;
  tps?: number;
  error?: string;
}

const CONNECT_PROMPT = "Reply with the single word: OK";
const SPEED_PROMPT = "Count from 1 to 60 in words, separated by commas, and nothing else.";
const TEST_MAX_TOKENS = 1024;

function tokenText(p: ModelPayload): string {
  if (p.type === "partial_text" && p.event_type === "delta") return p.text;
  if (p.type === "partial_thinking" && p.event_type === "delta") return p.thinking;
  return "";
}

export async function testModel(endpoint: ModelEndpoint, opts: TestModelOptions = {}): Promise<TestModelResult> {
  const now = opts.now ?? (() => performance.now());
  const speed = opts.speed === true;
  const req: Parameters<typeof streamModel>[0] = {
    endpoint: { ...endpoint, maxTokens: Math.min(endpoint.maxTokens ?? TEST_MAX_TOKENS, TEST_MAX_TOKENS), fastMode: false },
    messages: [{ type: "text", role: "user", text: speed ? SPEED_PROMPT : CONNECT_PROMPT }],
    tools: [],
  };
  if (opts.fetch !== undefined) req.fetch = opts.fetch;
  if (opts.timeoutMs !== undefined) req.timeoutMs = opts.timeoutMs;
  if (opts.timers !== undefined) req.timers = opts.timers;
  if (opts.signal !== undefined) req.signal = opts.signal;

  const started = now();
  let first: number | undefined;
  let chars = 0;
  const stream = streamModel(req);
  for (;;) {
    const step = await stream.next();
    if (step.done === true) {
      const ended = now();
      const outcome = step.value;
      if (outcome.status !== "completed") {
        return { ok: false, status: outcome.status, error: outcome.errorMessage ?? outcome.status };
      }
      const result: TestModelResult = { ok: true, status: "completed" };
      if (first === undefined) return result;
      result.ttftMs = first - started;
      if (speed) {
        const tokens = outcome.usage?.output ?? estimateTokens("x".repeat(chars));
        const seconds = (ended - first) / 1000;
        if (seconds > 0 && tokens > 0) result.tps = tokens / seconds;
      }
      return result;
    }
    const text = tokenText(step.value);
    if (text !== "") {
      first ??= now();
      chars += text.length;
    }
  }
}
