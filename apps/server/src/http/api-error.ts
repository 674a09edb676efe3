/**
 * ApiError: the one error type that routes, access checks and services throw to answer a
 * request with something other than success. It carries the HTTP status, a stable machine
 * code from the closed list below, a human message, and (for 400s) the field at fault.
 *
 * Rendering happens in exactly one place (http/error-response.ts), so every error body in the
 * API is `{error:{code, message, field?}}` and a new code must be added here first.
 */

export type ApiErrorCode =
  // 400
  | "invalid_request"
  | "invalid_path"
  | "invalid_config"
  | "model_error"
  // 401 / 403
  | "unauthorized"
  | "invalid_credentials"
  | "bad_origin"
  | "bad_host"
  | "password_change_required"
  | "owner_only"
  | "forbidden"
  | "mcp_command_not_allowed"
  // 404
  | "not_found"
  // 409
  | "task_in_progress"
  | "compacting"
  | "not_running"
  | "already_exists"
  | "nothing_to_compact"
  | "already_compacted"
  | "protected"
  | "session_unavailable"
  | "already_delivered"
  | "process_running"
  | "confirm_required"
  | "placeholder_present"
  | "cannot_fork"
  | "session_busy"
  | "outside_changes"
  // 413 / 415 / 429
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  // 5xx
  | "not_implemented"
  | "no_space"
  | "read_only"
  | "internal";

export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly field: string | undefined;
  /** Extra response headers (Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(status: number, code: ApiErrorCode, message: string, options: { field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.field = options.field;
    this.headers = options.headers ?? {};
  }
}

/** The 404 every denied or missing resource answers with, so denial and absence look alike. */
export function notFound(what: string): ApiError {
  return new ApiError(404, "not_found", `${what} not found`);
}

export function badRequest(message: string, field?: string): ApiError {
  return new ApiError(400, "invalid_request", message, field === undefined ? {} : { field });
}

export function conflict(code: ApiErrorCode, message: string): ApiError {
  return new ApiError(409, code, message);
}

/** For features core does not offer yet; every such route is listed in the package report. */
export function notImplemented(feature: string): ApiError {
  return new ApiError(501, "not_implemented", `${feature} is not implemented by this server yet`);
}
