/**
 * The one place the web app talks HTTP to the server (everything except the SSE streams).
 *
 * - Writes are JSON with `content-type: application/json`: the server's write guard refuses
 *   anything else (its CSRF defence), so no caller can forget it.
 * - Errors are `{error:{code, message, field?}}` on the wire and become an `ApiError` here,
 *   with the HTTP status kept, so callers branch on `code` (`task_in_progress`, …), never on
 *   message text. A non-JSON error body still becomes an ApiError (code `http_<status>`).
 * - A 401 on any call but the login itself tells the auth store (through `onUnauthorized`)
 *   that the cookie is gone, so the app can show the login page instead of broken pages.
 * - Response bodies come back as `unknown`: each resource module reads the fields it needs
 *   with the checked readers of api/read.ts (and OmniMessages with the protocol guards), so
 *   nothing is trusted by a cast.
 */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;

  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

let unauthorizedListener: (() => void) | undefined;
let fetchImpl: typeof fetch = (input, init) => fetch(input, init);

/** Registers the handler for "the session cookie is no longer valid". */
export function onUnauthorized(listener: (() => void) | undefined): void {
  unauthorizedListener = listener;
}

/** The streams (api/sse.ts callers) report a refused 401 here, like any other call. */
export function notifyUnauthorized(): void {
  unauthorizedListener?.();
}

/** Tests swap the transport; the app never calls this. */
export function setFetch(f: typeof fetch): void {
  fetchImpl = f;
}

export function getFetch(): typeof fetch {
  return fetchImpl;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

async function errorOf(res: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const err = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const code = typeof err?.code === "string" ? err.code : `http_${res.status}`;
  const message = typeof err?.message === "string" ? err.message : `${res.status} ${res.statusText || "request failed"}`;
  const field = typeof err?.field === "string" ? err.field : undefined;
  return new ApiError(res.status, code, message, field);
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Do not report a 401 as a lost session (the login call itself). */
  quiet401?: boolean;
}

/** Sends one request and returns the parsed JSON body (undefined for 204 / empty bodies). */
export async function request(method: Method, path: string, options: RequestOptions = {}): Promise<unknown> {
  const init: RequestInit = { method, credentials: "same-origin", headers: { accept: "application/json" } };
  if (options.signal !== undefined) init.signal = options.signal;
  if (options.body !== undefined || method !== "GET") {
    init.headers = { accept: "application/json", "content-type": "application/json" };
    init.body = JSON.stringify(options.body ?? {});
  }
  const res = await fetchImpl(path, init);
  if (!res.ok) {
    const error = await errorOf(res);
    if (res.status === 401 && options.quiet401 !== true) unauthorizedListener?.();
    throw error;
  }
  if (res.status === 204) return undefined;
  const text = await res.text();
  if (text === "") return undefined;
  const body: unknown = JSON.parse(text);
  return body;
}

export const get = (path: string, signal?: AbortSignal) => request("GET", path, signal === undefined ? {} : { signal });
export const post = (path: string, body?: unknown) => request("POST", path, { body: body ?? {} });
export const put = (path: string, body: unknown) => request("PUT", path, { body });
export const patch = (path: string, body: unknown) => request("PATCH", path, { body });
export const del = (path: string) => request("DELETE", path, {});

/** Builds `path?k=v&…`, skipping undefined and empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs === "" ? path : `${path}?${qs}`;
}

/** Encodes one path segment. */
export const seg = (s: string): string => encodeURIComponent(s);

/** The user-facing text of any thrown value. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
