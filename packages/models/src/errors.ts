/**
 * Failure classification: everything that can go wrong with a model request, classified once
 * at the wire into a closed set (`Failure`), then mapped to an outcome by one exhaustive switch.
 *
 * - HTTP statuses: 401/403 → `auth`; 429 → `failed` with `retryAfterMs`; 408 → `timeout`;
 *   5xx → `failed`; any other 4xx (400, 413, 422…) → `failed` and `permanent`, since the
 *   same request will be rejected again. 404 and 501 mean the base URL points at something
 *   that is not this protocol's endpoint: `endpoint` class, permanent and `configuration`. Gemini answers a bad key with 400 `API_KEY_INVALID`
 *   (a structured `reason`), which is `auth`; an OpenAI 429 with code `insufficient_quota` is
 *   permanent (waiting does not buy credit).
 * - In-stream provider errors (Responses `error`/`response.failed`, Anthropic `error`, Gemini
 *   `error`) are mapped by each protocol onto `ErrorClass`, then share the same table.
 * - Transport: no response start in time → `timeout`; a silent gap → `timeout`; the caller's
 *   signal → `aborted`; refused/reset connections → `failed` (retryable: a local server may
 *   be starting). An unknown host (ENOTFOUND), a port fetch blocks (9, 6000…) and a base URL
 *   that does not parse or is not http(s) are configuration errors: permanent, flagged `configuration`, so a host stops at
 *   once and says to fix the base URL instead of retrying for a minute.
 * - `malformed`: bad JSON, broken framing, or a stream that ended without its terminal event.
 *
 * Messages name the provider, the model and the HTTP status (transport and configuration
 * failures also name the base URL), and never contain the key: any text that came from the
 * provider is scrubbed of it before it is used.
 */
import type { ModelOutcome } from "./types.js";
import { arrayAt, isRecord, numberAt, parseJson, stringAt, type JsonRecord } from "./json.js";

/** What an in-stream (or HTTP) provider error means for a retry. */
export type ErrorClass = "auth" | "rate_limit" | "overloaded" | "quota" | "invalid_request" | "endpoint" | "server" | "unknown";

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
  | { kind: "request"; detail: string }
  /** The endpoint's settings cannot work (a base URL that does not parse, a scheme other than http/https). */
  | { kind: "config"; detail: string };

/** Who the request was for, to name it in messages and to scrub the key. */
export interface Who {
  provider: string;
  modelId: string;
  apiKey?: string;
  /** The endpoint's base URL, named in transport and configuration messages. */
  baseUrl?: string;
}

/** Transport error codes that say the endpoint's address is wrong, not that it is down. */
const CONFIGURATION_CODES = new Set(["ENOTFOUND", "ERR_INVALID_URL"]);

/** Plain words for the transport codes a user meets; others are shown as the code. */
const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "host name lookup failed (temporary)",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed by the server",
  ERR_INVALID_URL: "the base URL is not a valid URL",
};


/**
 * Why a base URL cannot be used, or undefined when it can: it must parse as an absolute URL
 * with an http or https scheme and a host. Shared by the gateway (before sending) and by
 * `penguin config model add` (before writing).
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return `"${baseUrl}" is not a URL (it needs a scheme and a host, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1)`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `"${baseUrl}" uses ${url.protocol.replace(/:$/, "")}:, but a model endpoint is http or https (e.g. https://api.openai.com/v1)`;
  }
  if (url.hostname === "") return `"${baseUrl}" has no host name (e.g. https://api.openai.com/v1)`;
  return undefined;
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
  if (status === 404 || status === 501) return "endpoint";
  if (status === 529 || status === 503) return "overloaded";
  if (status >= 500) return "server";
  if (status >= 400) return "invalid_request";
  return "unknown";
}

interface ClassOutcome {
  status: ModelOutcome["status"];
  permanent: boolean;
  configuration?: true;
}

/** The one table from error class to stop reason and retryability. */
export function outcomeOfClass(c: ErrorClass): ClassOutcome {
  switch (c) {
    case "auth":
      return { status: "auth", permanent: true };
    case "invalid_request":
    case "quota":
      return { status: "failed", permanent: true };
    case "endpoint":
      return { status: "failed", permanent: true, configuration: true };
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
  const at = who.baseUrl === undefined ? "" : ` at ${who.baseUrl}`;
  switch (failure.kind) {
    case "http": {
      const { status, permanent, configuration } = outcomeOfHttp(failure.status, failure.error);
      const detail = describe(failure.error, who.apiKey);
      const where = configuration === true ? `${at}${failure.status === 404 ? " (no such endpoint)" : " (not implemented there)"}` : "";
      const out: ModelOutcome = {
        status,
        errorMessage: `${name}: HTTP ${failure.status}${where}${detail === "" ? "" : `: ${detail}`}`,
        httpStatus: failure.status,
      };
      if (permanent) out.permanent = true;
      if (configuration === true) out.configuration = true;
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
      // fetch refuses a list of reserved ports (9, 6000…) before connecting, with a bare "bad port".
      const blockedPort = failure.code === undefined && /(^|: )bad port$/.test(failure.detail);
      const words = blockedPort ? "blocked port" : failure.code === undefined ? undefined : NETWORK_WORDS[failure.code];
      const hint = blockedPort ? " (fetch never connects to reserved ports such as 9 or 6000: use another port)" : "";
      const what = words !== undefined && at !== "" ? `${words}${at}${hint}` : `${scrub(failure.detail, who.apiKey)}${at}${hint}`;
      const out: ModelOutcome = { status: "failed", errorMessage: `${name}: ${where}${code}: ${what}` };
      if (blockedPort || (failure.code !== undefined && CONFIGURATION_CODES.has(failure.code))) {
        out.permanent = true;
        out.configuration = true;
      }
      return out;
    }
    case "stream_error": {
      const { status, permanent, configuration } = outcomeOfClass(failure.errorClass);
      const detail = describe(failure.error, who.apiKey);
      const out: ModelOutcome = {
        status,
        errorMessage: `${name}: HTTP 200, error in stream${detail === "" ? "" : `: ${detail}`}`,
        httpStatus: 200,
      };
      if (permanent) out.permanent = true;
      if (configuration === true) out.configuration = true;
      return out;
    }
    case "malformed":
      return { status: "malformed", errorMessage: `${name}: HTTP 200, ${failure.detail}`, httpStatus: 200 };
    case "request":
      return { status: "failed", permanent: true, errorMessage: `${name}: ${scrub(failure.detail, who.apiKey)}` };
    case "config":
      return { status: "failed", permanent: true, configuration: true, errorMessage: `${name}: invalid base URL: ${failure.detail}` };
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
