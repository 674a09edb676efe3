/**
 * The one place an error becomes an HTTP answer: `{error:{code, message, field?}}`.
 *
 * - ApiError keeps its status, code, field and headers.
 * - Core's PenguinError (bad model pair, missing workspace…) and ConfigError (a broken file
 *   a user can fix) are 400s with core's message, which already says what to do.
 *   `session_busy` (another process runs the session: one writer per session) is a 409 that
 *   names the holder.
 * - A full disk or a read-only file system (storage-failure.ts) is a 507 or a 503
 *   naming the file, not a bug.
 * - Anything else is a bug: the client gets a bare 500 `internal` (no stack, no paths) and
 *   the full error goes to the injected reporter, so library code itself never prints.
 */
import { ConfigError, InvalidIdError, isPenguinError } from "@penguin/core";
import { storageFailure } from "./storage-failure.js";
import { ApiError, type ApiErrorCode } from "./api-error.js";

export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; field?: string };
}

export function errorBody(code: ApiErrorCode, message: string, field?: string): ErrorBody {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}

/** Converts what a handler threw into the ApiError it stands for. */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const storage = storageFailure(error);
  if (storage !== undefined) return storage;
  if (isPenguinError(error)) {
    if (error.code === "session_busy") return new ApiError(409, "session_busy", error.message);
    return new ApiError(error.code === "session_not_found" ? 404 : 400, error.code === "session_not_found" ? "not_found" : "model_error", error.message);
  }
  if (error instanceof ConfigError) {
    const field = error.detail.field;
    return new ApiError(400, "invalid_config", error.message, field === undefined ? {} : { field });
  }
  if (error instanceof InvalidIdError) return new ApiError(400, "invalid_request", error.message);
  const status = clientErrorStatus(error);
  if (status === 413) return new ApiError(413, "payload_too_large", "the request is too large");
  if (status !== undefined) return new ApiError(400, "invalid_request", "the request could not be read (a malformed path, query or body)");
  return undefined;
}

/**
 * Express and its router throw http-errors objects for what they reject before a handler
 * runs: a 4xx with `expose: true`, or (the router's "Failed to decode param") a URIError
 * carrying status 400. Those are the client's fault and must not become a 500.
 */
function clientErrorStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const status = "status" in error ? error.status : "statusCode" in error ? error.statusCode : undefined;
  if (typeof status !== "number" || status < 400 || status > 499) return undefined;
  const exposed = "expose" in error && error.expose === true;
  return exposed || error instanceof URIError ? status : undefined;
}

export function errorResponse(error: unknown, report: (error: unknown) => void): Response {
  const api = toApiError(error);
  if (api === undefined) {
    report(error);
    return jsonResponse(500, errorBody("internal", "internal server error"));
  }
  return jsonResponse(api.status, errorBody(api.code, api.message, api.field), api.headers);
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}
