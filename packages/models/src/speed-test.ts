/**
 * Connectivity and speed test: one small real request through `streamModel`.
 *
 * `ttftMs` is the time from sending to the first streamed token (text or thinking, whichever
 * comes first). With `speed: true` the prompt asks for a longer answer and `tps` is output
 * tokens per second after the first token (the provider's output count when reported, else an
 * estimate from the characters received). The clock is injectable so tests are exact; the
 * default is `performance.now`. The output cap is kept small (1024) so a test costs little.
 * With `answer: true` the result also carries what the model answered (capped) and the time
 * the whole request took, which `penguin config model add --check` shows; the default result
 * stays as small as the server's test route sends it.
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
  /** Also report the answer text and the whole request's time (`answer`, `totalMs`). */
  answer?: boolean;
}

export interface TestModelResult {
  ok: boolean;
  /** How the request ended. */
  status: StopReason;
  ttftMs?: number;
  tps?: number;
  error?: string;
  /** Present (true) when the failure is the endpoint's configuration: bad base URL, unknown host, 404/501. */
  configuration?: boolean;
  /** With `answer: true`: the model's text, at most ANSWER_CAP characters. */
  answer?: string;
  /** With `answer: true`: milliseconds from sending to the end of the response. */
  totalMs?: number;
}

const CONNECT_PROMPT = "Reply with the single word: OK";
const SPEED_PROMPT = "Count from 1 to 60 in words, separated by commas, and nothing else.";
const TEST_MAX_TOKENS = 1024;
const ANSWER_CAP = 200;

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
  let answer = "";
  const stream = streamModel(req);
  for (;;) {
    const step = await stream.next();
    if (step.done === true) {
      const ended = now();
      const outcome = step.value;
      if (outcome.status !== "completed") {
        const failed: TestModelResult = { ok: false, status: outcome.status, error: outcome.errorMessage ?? outcome.status };
        if (outcome.configuration === true) failed.configuration = true;
        return failed;
      }
      const result: TestModelResult = { ok: true, status: "completed" };
      if (opts.answer === true) {
        result.answer = answer.length > ANSWER_CAP ? `${answer.slice(0, ANSWER_CAP)}…` : answer;
        result.totalMs = ended - started;
      }
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
    const p = step.value;
    if (opts.answer === true && p.type === "text" && p.role === "assistant" && answer.length <= ANSWER_CAP) answer += p.text;
    if (text !== "") {
      first ??= now();
      chars += text.length;
    }
  }
}
