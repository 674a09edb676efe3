/**
 * Reading a JSON request body safely. The byte cap is checked against Content-Length first
 * and then while streaming (413 beyond it, without buffering the rest); the nesting depth is
 * checked on the text before parsing (400 beyond MAX_JSON_DEPTH), because a body of a
 * hundred thousand `[` parses fine but overflows the stack of everything that walks it
 * afterwards, and that must be the client's 400, never the server's 500.
 */
import type { IncomingMessage } from "node:http";
import { ApiError } from "./api-error.js";

export const MAX_JSON_DEPTH = 64;

export async function readBodyText(request: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(request.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.byteLength;
    if (size > maxBytes) {
      request.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(request, maxBytes);
  if (text.trim() === "") return undefined;
  const depth = nestingDepth(text);
  if (depth > MAX_JSON_DEPTH) throw new ApiError(400, "invalid_request", `the body nests deeper than ${MAX_JSON_DEPTH} levels; send a flatter document`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_request", "the body is not valid JSON");
  }
}

/** The deepest `[`/`{` nesting outside string literals (a malformed text may over-count; it fails to parse anyway). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return deepest;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "payload_too_large", `the body is larger than ${Math.round(maxBytes / 1024)} KiB`);
}
