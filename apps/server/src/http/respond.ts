/**
 * Success responses, in one style: JSON bodies with an explicit status, and 204 with none.
 */
import { jsonResponse } from "./error-response.js";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, body, headers);
}

export function noContent(headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 204, headers });
}
