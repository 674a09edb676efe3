/**
 * Turn an incoming HTTP request into a RecordedRequest: the exact bytes, flat lower-case
 * headers, the parsed body and the protocol-independent view (model, system, messages, tools).
 */
import type { IncomingHttpHeaders } from "node:http";
import { parseJson } from "./json.js";
import { normalizeRequest } from "./normalize/index.js";
import type { RecordedRequest, WireProtocol } from "./script.js";

export interface IncomingModelRequest {
  index: number;
  protocol: WireProtocol;
  method: string;
  /** The request target as sent: path plus query. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Gemini names the model in the URL. */
  urlModel: string | undefined;
}

export function recordRequest(incoming: IncomingModelRequest): RecordedRequest {
  const body = parseJson(incoming.rawBody);
  const view = normalizeRequest(incoming.protocol, body, incoming.urlModel);
  return {
    index: incoming.index,
    protocol: incoming.protocol,
    method: incoming.method,
    path: incoming.path,
    headers: flatHeaders(incoming.headers),
    rawBody: incoming.rawBody,
    body,
    model: view.model,
    system: view.system,
    messages: view.messages,
    toolNames: view.toolNames,
  };
}

/** Node's headers with repeated values joined by ", " (as HTTP allows). */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
