/**
 * `streamModel`: one stateless model request, dispatched on the endpoint's client type.
 *
 * The flow is the same for every protocol: build the wire request, send it (http.ts: start and
 * idle timeouts, abort), classify a non-2xx status (errors.ts), then feed the body through the
 * SSE parser into the protocol's reducer, which drives the ResponseAssembler; yield what it
 * emits as it comes, and stop reading at the protocol's terminal event.
 *
 * Contract (see types.ts): it never throws once called; partials go start → delta* → stop with
 * the complete payload right after each stop; complete messages settle thinking → text →
 * tool_call; usage only in the outcome of a completed response; every failure ends in an
 * outcome with one of the six stop reasons. If the consumer stops iterating early, the
 * `finally` closes the response body.
 *
 * A reset connection mid-stream is `failed` (a transport failure, retryable), not `malformed`:
 * the bytes we did get were well-formed, the connection broke. A body that ends cleanly but
 * early is `malformed`.
 */
import type { ModelPayload } from "@penguin/omnimessage";
import { ResponseAssembler } from "./assembler.js";
import { baseUrlProblem, detailOf, outcomeOf, parseRetryAfter, providerErrorOf, type Failure, type Who } from "./errors.js";
import { fastModeFor } from "./fast-mode.js";
import { globalTimers, send, wholeBody, type WireRequest } from "./http.js";
import { proxyFetch } from "./proxy.js";
import type { ProtocolAdapter, Ending } from "./protocols/adapter.js";
import { anthropicMessagesAdapter } from "./protocols/anthropic-messages.js";
import { geminiAdapter } from "./protocols/gemini.js";
import { openaiChat } from "./protocols/openai-chat.js";
import { openaiResponses } from "./protocols/openai-responses.js";
import { createSseParser } from "./sse.js";
import type { ClientType, ModelOutcome, ModelRequest } from "./types.js";

export const DEFAULT_TIMEOUT_MS = 120000;

export function adapterFor(clientType: ClientType): ProtocolAdapter {
  switch (clientType) {
    case "openai-chat":
      return openaiChat;
    case "openai-responses":
      return openaiResponses;
    case "anthropic-messages":
      return anthropicMessagesAdapter;
    case "gemini":
      return geminiAdapter;
  }
}

/**
 * The key this request sends: the endpoint's own, nothing else. The env fallback is applied
 * once, when the endpoint is built (`resolveApiKey` in credentials.ts, with an explicit env),
 * so the request path never reads the process environment.
 */
export function apiKeyFor(req: ModelRequest): string | undefined {
  return req.endpoint.apiKey;
}

/** The wire request `streamModel` would send (for inspection and tests), its body in one piece. */
export function buildWireRequest(req: ModelRequest): WireRequest {
  const wire = adapterFor(req.endpoint.clientType).buildRequest(req, apiKeyFor(req));
  return { ...wire, body: wholeBody(wire.body) };
}

function endingOutcome(ending: Ending, who: Who): ModelOutcome {
  switch (ending.kind) {
    case "completed": {
      const out: ModelOutcome = { status: "completed", httpStatus: 200, finish: ending.finish };
      if (ending.usage !== undefined) out.usage = ending.usage;
      return out;
    }
    case "failed":
      return outcomeOf(ending.failure, who);
  }
}

/** One request; see the file header for the contract. */
export async function* streamModel(req: ModelRequest): AsyncGenerator<ModelPayload, ModelOutcome> {
  try {
    return yield* streamRequest(req);
  } catch (err) {
    // Only a request that is not a ModelRequest at all (a JavaScript caller) gets here; the
    // stream phase catches its own errors and closes its segments first.
    return { status: "failed", permanent: true, errorMessage: `invalid model request: ${detailOf(err)}` };
  }
}

async function* streamRequest(req: ModelRequest): AsyncGenerator<ModelPayload, ModelOutcome> {
  const apiKey = apiKeyFor(req);
  const who: Who = { provider: req.endpoint.provider, modelId: req.endpoint.modelId, baseUrl: req.endpoint.baseUrl };
  if (apiKey !== undefined) who.apiKey = apiKey;
  const fail = (failure: Failure): ModelOutcome => outcomeOf(failure, who);

  const urlProblem = baseUrlProblem(req.endpoint.baseUrl);
  if (urlProblem !== undefined) return fail({ kind: "config", detail: urlProblem });

  if (req.endpoint.fastMode === true && !fastModeFor(req.endpoint).supported) {
    return fail({ kind: "request", detail: `fast mode is not available on ${req.endpoint.clientType} at ${req.endpoint.baseUrl}` });
  }
  const adapter = adapterFor(req.endpoint.clientType);
  let wire: WireRequest | undefined;
  try {
    wire = adapter.buildRequest(req, apiKey);
  } catch (err) {
    return fail({ kind: "request", detail: `could not build the request: ${detailOf(err)}` });
  }

  req.onSend?.();
  const sent = await send(wire, {
    fetch: req.fetch ?? proxyFetch(),
    timeoutMs: req.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    timers: req.timers ?? globalTimers,
    signal: req.signal,
  });
  // Sent: this generator lives as long as the answer streams, and must not keep the body.
  wire = undefined;
  if (!sent.ok) return fail(sent.failure);
  const res = sent.response;
  const assembler = new ResponseAssembler();
  // Set where the answer ended as the protocol says answers end: its connection may be kept.
  let answered = false;
  try {
    if (res.status < 200 || res.status >= 300) {
      const body = await res.text();
      const failure: Failure = { kind: "http", status: res.status, error: providerErrorOf(body) };
      const retryAfterMs = parseRetryAfter(res.headers, req.now ?? Date.now);
      if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
      return fail(failure);
    }
    const reducer = adapter.createReducer(req, assembler);
    const parser = createSseParser();
    for (;;) {
      const r = await res.read();
      if (r.kind === "failure") {
        const outcome = fail(r.failure);
        assembler.finish(outcome.status);
        yield* assembler.take();
        return outcome;
      }
      if (r.kind === "end") {
        const tail = parser.end();
        for (const ev of tail.events) {
          reducer.feed(ev);
          if (reducer.ending !== undefined) break;
        }
        yield* assembler.take();
        const ending = reducer.ending ?? reducer.end();
        const outcome = endingOutcome(ending, who);
        answered = true;
        assembler.finish(outcome.status);
        yield* assembler.take();
        return outcome;
      }
      for (const ev of parser.push(r.bytes)) {
        reducer.feed(ev);
        if (reducer.ending !== undefined) break;
      }
      yield* assembler.take();
      const ending = reducer.ending;
      if (ending !== undefined) {
        const outcome = endingOutcome(ending, who);
        answered = true;
        assembler.finish(outcome.status);
        yield* assembler.take();
        return outcome;
      }
    }
  } catch (err) {
    // Nothing above should throw; if something does, it still ends as an outcome.
    const outcome = fail({ kind: "malformed", detail: `unexpected error while reading the stream: ${detailOf(err)}` });
    assembler.finish(outcome.status);
    yield* assembler.take();
    return outcome;
  } finally {
    if (answered) await res.release();
    else res.close();
  }
}
