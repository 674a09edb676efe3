/**
 * Failure classification: everything that can go wrong with a model request, classified once
 * at the wire into a closed set (`Failure`), then mapped to an outcome by one exhaustive switch.
 *
 * - HTTP statuses: 401/403 → `auth`; 429 → `failed` with `retryAfterMs`; 408 → `timeout`;
 *   5xx → `failed`; any other 4xx (400, 404, 413, 422…) → `failed` and `permanent`, since the
 *   same request will be rejected again. Gemini answers a bad key with 400 `API_KEY_INVALID`
 *   (a structured `reason`), which is `auth`; an OpenAI 429 with code `insufficient_quota` is
 *   permanent (waiting does not buy credit).
 * - In-stream provider errors (Responses `error`/`response.failed`, Anthropic `error`, Gemini
 *   `error`) are mapped by each protocol onto `ErrorClass`, then share the same table.
 * - Transport: no response start in time → `timeout`; a silent gap → `timeout`; the caller's
 *   signal → `aborted`; refused/reset connections → `failed` (retryable).
 * - `malformed`: bad JSON, broken framing, or a stream that ended without its terminal event.
 *
 * Messages name the provider, the model and the HTTP status, and never contain the key: any
 * text that came from the provider is scrubbed of it before it is used.
 */
import type { ModelOutcome } from "./types.js";
import { arrayAt, isRecord, numberAt, parseJson, stringAt, type JsonRecord } from "./json.js";

/** What an in-stream (or HTTP) provider error means for a retry. */
export type ErrorClass = "auth" | "rate_limit" | "overloaded" | "quota" | "invalid_request" | "server" | "unknown";

/** The structured fields of a provider's error body, whatever its shape. */
export interface ProviderError {
  /** `code` (OpenAI), `error.type` (Anthropic) or `status` (Gemini). */
  code?: string;
  message?: string;
  /** Gemini `details[].reason`, e.g. `API_KEY_INVALID`. */
  reason?: string;
}

export type Failure =
  | { kind: "http"; status: number; error: ProviderError; retryAfterMs?: number }
  | { kind: "start_timeout"; ms: number }
  | { kind: "idle_timeout"; ms: number }
  | { kind: "aborted" }
  | { kind: "network"; code?: string; detail: string; midStream: boolean }
  | { kind: "stream_error"; errorClass: ErrorClass; error: ProviderError }
  | { kind: "malformed"; detail: string }
  | { kind: "request"; detail: string };

/** Who the request was for, to name it in messages and to scrub the key. */
export interface Who {
  provider: string;
  modelId: string;
  apiKey?: string;
}

const MAX_PROVIDER_TEXT = 400;

/** Removes the key (and anything the provider echoed of it) from provider text. */
export function scrub(text: string, apiKey: string | undefined): string {
  let out = text;
  if (apiKey !== undefined && apiKey.length >= 4) out = out.split(apiKey).join("***");
  return out.length > MAX_PROVIDER_TEXT ? `${out.slice(0, MAX_PROVIDER_TEXT)}…` : out;
}

/** Reads the error body of any of the four protocols (and common gateways). */
export function providerErrorOf(body: string): ProviderError {
  const parsed = parseJson(body);
  if (!parsed.ok) {
    const text = body.trim();
    return text === "" || text.startsWith("<") ? {} : { message: text };
  }
  // Gemini sometimes wraps the error in a one-element array.
  const value = Array.isArray(parsed.value) ? parsed.value[0] : parsed.value;
  if (!isRecord(value)) return {};
  const err = value.error;
  if (typeof err === "string") return { message: err };
  return errorFields(isRecord(err) ? err : value, value);
}

function errorFields(e: JsonRecord, outer: JsonRecord): ProviderError {
  const out: ProviderError = {};
  const numeric = numberAt(e, "code");
  const code = stringAt(e, "code") ?? stringAt(e, "type") ?? stringAt(e, "status") ?? (numeric === undefined ? undefined : String(numeric));
  if (code !== undefined) out.code = code;
  const message = stringAt(e, "message") ?? stringAt(outer, "message") ?? stringAt(outer, "detail");
  if (message !== undefined) out.message = message;
  for (const d of arrayAt(e, "details")) {
    const reason = stringAt(d, "reason");
    if (reason !== undefined) {
      out.reason = reason;
      break;
    }
  }
  return out;
}

export interface HeaderReader {
  get(name: string): string | null;
}

/** `retry-after-ms`, else `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(headers: HeaderReader, now: () => number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now());
}

/** The class of an HTTP error status, refined by the structured body where a provider needs it. */
export function classOfHttp(status: number, error: ProviderError): ErrorClass {
  if (status === 401 || status === 403) return "auth";
  if (status === 400 && error.reason === "API_KEY_INVALID") return "auth";
  if (status === 429) return error.code === "insufficient_quota" ? "quota" : "rate_limit";
  if (status === 529 || status === 503) return "overloaded";
  if (status >= 500) return "server";
  if (status >= 400) return "invalid_request";
  return "unknown";
}

interface ClassOutcome {
  status: ModelOutcome["status"];
  permanent: boolean;
}

/** The one table from error class to stop reason and retryability. */
export function outcomeOfClass(c: ErrorClass): ClassOutcome {
  switch (c) {
    case "auth":
      return { status: "auth", permanent: true };
    case "invalid_request":
    case "quota":
      return { status: "failed", permanent: true };
    case "rate_limit":
    case "overloaded":
    case "server":
    case "unknown":
      return { status: "failed", permanent: false };
  }
}

/** 408 is the server timing out our request; everything else goes through the class table. */
function outcomeOfHttp(status: number, error: ProviderError): ClassOutcome {
  if (status === 408) return { status: "timeout", permanent: false };
  return outcomeOfClass(classOfHttp(status, error));
}

function describe(error: ProviderError, apiKey: string | undefined): string {
  const parts: string[] = [];
  if (error.code !== undefined) parts.push(scrub(error.code, apiKey));
  if (error.message !== undefined) parts.push(scrub(error.message, apiKey));
  return parts.join(": ");
}

/** Maps a classified failure to the outcome the gateway returns. */
export function outcomeOf(failure: Failure, who: Who): ModelOutcome {
  const name = `${who.provider}/${who.modelId}`;
  switch (failure.kind) {
    case "http": {
      const { status, permanent } = outcomeOfHttp(failure.status, failure.error);
      const detail = describe(failure.error, who.apiKey);
      const out: ModelOutcome = {
        status,
        errorMessage: `${name}: HTTP ${failure.status}${detail === "" ? "" : `: ${detail}`}`,
        httpStatus: failure.status,
      };
      if (permanent) out.permanent = true;
      if (failure.retryAfterMs !== undefined) out.retryAfterMs = failure.retryAfterMs;
      return out;
    }
    case "start_timeout":
      return { status: "timeout", errorMessage: `${name}: no response within ${failure.ms} ms` };
    case "idle_timeout":
      return { status: "timeout", errorMessage: `${name}: stream silent for more than ${failure.ms} ms` };
    case "aborted":
      return { status: "aborted", errorMessage: `${name}: request aborted` };
    case "network": {
      const where = failure.midStream ? "connection lost mid-stream" : "network error";
      const code = failure.code === undefined ? "" : ` (${failure.code})`;
      return { status: "failed", errorMessage: `${name}: ${where}${code}: ${scrub(failure.detail, who.apiKey)}` };
    }
    case "stream_error": {
      const { status, permanent } = outcomeOfClass(failure.errorClass);
      const detail = describe(failure.error, who.apiKey);
      const out: ModelOutcome = {
        status,
        errorMessage: `${name}: HTTP 200, error in stream${detail === "" ? "" : `: ${detail}`}`,
        httpStatus: 200,
      };
      if (permanent) out.permanent = true;
      return out;
    }
    case "malformed":
      return { status: "malformed", errorMessage: `${name}: HTTP 200, ${failure.detail}`, httpStatus: 200 };
    case "request":
      return { status: "failed", permanent: true, errorMessage: `${name}: ${scrub(failure.detail, who.apiKey)}` };
  }
}

/** The `code` of an error's cause (undici puts ECONNREFUSED, UND_ERR_SOCKET… there). */
export function causeCodeOf(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 4 && isRecord(cur); depth++) {
    const code = stringAt(cur, "code");
    if (code !== undefined) return code;
    cur = cur.cause;
  }
  return undefined;
}

/** A one-line description of a thrown value and its causes. */
export function detailOf(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; depth < 4 && cur !== undefined && cur !== null; depth++) {
    if (cur instanceof Error) {
      parts.push(cur.message);
      cur = cur.cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.filter((p) => p !== "").join(": ") || "unknown error";
}

/** Reads `{code, message}`-ish error objects carried inside stream events. */
export function streamErrorOf(e: unknown): ProviderError {
  return errorFields(isRecord(e) ? e : {}, {});
}
