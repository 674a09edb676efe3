/**
 * What happens to one model request, in order:
 * 1. record it (always — `requests` is the full log, probes included);
 * 2. refuse it with the protocol's 400 if a real provider would (missing fields, Gemini
 *    streaming without `?alt=sse`) — no step is consumed, nothing is a violation;
 * 3. run the pairing check — a problem is a violation and a 400 whose message starts with
 *    `testkit pairing check:`; no step is consumed, so the script stays aligned;
 * 4. take the next step — none left is a violation and a 400 (`testkit: script exhausted…`);
 * 5. resolve a function step against the recorded request, then answer: a fixture replay,
 *    an `http` fault, or the turn rendered in the endpoint's protocol (streamed or not, as the
 *    client asked) and played with its pacing and fault.
 */
import type { ServerResponse } from "node:http";
import { errorBody } from "./http-errors.js";
import { isRecord, recordField } from "./json.js";
import { checkPairing } from "./pairing.js";
import { planTurn } from "./plan.js";
import { playBody, playStream } from "./play.js";
import { recordRequest, type IncomingModelRequest } from "./record.js";
import { renderBody, renderStream } from "./render/index.js";
import { playReplay, prepareReplay } from "./replay.js";
import type { RecordedRequest, ScriptedTurn, ScriptStep, WireProtocol } from "./script.js";
import { validateRequest } from "./validate.js";
import { sendJson } from "./write.js";

export interface Violation {
  requestIndex: number;
  message: string;
}

/** The testkit's shared state, as the request handler sees it. */
export interface KitState {
  readonly queue: ScriptStep[];
  readonly requests: RecordedRequest[];
  /** Aborted when the testkit closes; stops every pacing timer and pending write. */
  readonly closed: AbortSignal;
  /** Called after each request is recorded (wakes `waitForRequests`). */
  recorded(): void;
  reportViolation(violation: Violation): void;
}

export interface ModelCall {
  incoming: Omit<IncomingModelRequest, "index">;
  /** Gemini says it in the URL; the other protocols say it in the body. */
  geminiStream: boolean | undefined;
}

export async function handleModelRequest(kit: KitState, call: ModelCall, res: ServerResponse): Promise<void> {
  const request = recordRequest({ ...call.incoming, index: kit.requests.length });
  kit.requests.push(request);
  kit.recorded();
  const { protocol, index } = request;
  const refuse = (status: number, message: string, violation: boolean): void => {
    if (violation) kit.reportViolation({ requestIndex: index, message });
    sendJson(res, status, errorBody(protocol, status, message));
  };

  const invalid = validateRequest(protocol, request.body) ?? geminiSseProblem(call, request.path);
  if (invalid !== undefined) return refuse(400, invalid, false);

  const problems = checkPairing(request.messages);
  if (problems.length > 0) {
    for (const problem of problems) kit.reportViolation({ requestIndex: index, message: `testkit pairing check: ${problem}` });
    return sendJson(res, 400, errorBody(protocol, 400, `testkit pairing check: ${problems.join("; ")}`));
  }

  const step = kit.queue.shift();
  if (step === undefined) return refuse(400, `testkit: script exhausted at request #${index}`, true);

  const signal = responseSignal(res, kit.closed);
  try {
    const answer = typeof step === "function" ? step(request) : step;
    if ("fixture" in answer) return await playReplay(res, prepareReplay(answer, protocol), signal);
    return await playTurn(res, request, answer, wantsStream(call, request.body), signal);
  } catch (error) {
    const message = `testkit: the script step for request #${index} failed: ${errorMessage(error)}`;
    if (!res.headersSent) return refuse(500, message, true);
    kit.reportViolation({ requestIndex: index, message });
    res.destroy();
  }
}

async function playTurn(res: ServerResponse, request: RecordedRequest, turn: ScriptedTurn, stream: boolean, signal: AbortSignal): Promise<void> {
  const fault = turn.fault;
  if (fault?.kind === "http") {
    const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter };
    return sendJson(res, fault.status, httpFaultBody(request.protocol, fault.status, fault.body), headers);
  }
  const plan = planTurn(turn, request);
  if (!stream) return playBody(res, JSON.stringify(renderBody(request.protocol, plan)), fault, signal);
  const events = renderStream(request.protocol, plan, { includeUsage: includeUsage(request.body) });
  return playStream(res, events, turn.delayMs ?? 0, fault, signal);
}

/** A scripted body that already is JSON goes out verbatim; plain text becomes the message. */
function httpFaultBody(protocol: WireProtocol, status: number, body: string | undefined): string {
  if (body !== undefined && isJsonObjectText(body)) return body;
  return errorBody(protocol, status, body ?? `testkit: scripted HTTP ${status}`);
}

function isJsonObjectText(text: string): boolean {
  try {
    return isRecord(JSON.parse(text));
  } catch {
    return false;
  }
}

function wantsStream(call: ModelCall, body: unknown): boolean {
  if (call.geminiStream !== undefined) return call.geminiStream;
  return isRecord(body) && body["stream"] === true;
}

function includeUsage(body: unknown): boolean {
  const options = isRecord(body) ? recordField(body, "stream_options") : undefined;
  return options?.["include_usage"] === true;
}

function geminiSseProblem(call: ModelCall, path: string): string | undefined {
  if (call.geminiStream !== true) return undefined;
  const alt = new URL(path, "http://testkit.invalid").searchParams.get("alt");
  return alt === "sse" ? undefined : "testkit: streamGenerateContent is served as SSE only; add ?alt=sse to the URL";
}

/** Aborts when the response closes (client gone or done) or the testkit closes. */
function responseSignal(res: ServerResponse, closed: AbortSignal): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  return AbortSignal.any([closed, controller.signal]);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
