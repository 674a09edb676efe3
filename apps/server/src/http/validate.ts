/**
 * Input validation: params, query and JSON bodies through zod, with one rule for failures.
 *
 * A failure is a 400 `invalid_request` whose `field` is the dotted path of the first bad
 * value and whose message says where it was (body, query or path) and what was wrong, so a
 * client can point at the input without parsing text. Bodies are read with a byte cap (413
 * beyond it) and must be JSON; the content-type itself is enforced earlier, for every write,
 * by the write guard (auth/write-guard.ts).
 */
import type { z } from "zod";
import { ApiError } from "./api-error.js";

export type InputPart = "body" | "query" | "path";

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, part: InputPart): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  const where = path === "" ? `the ${part}` : `${part} field "${path}"`;
  const message = `${where}: ${issue?.message ?? "is invalid"}`;
  throw new ApiError(400, "invalid_request", message, path === "" ? {} : { field: path });
}

/** Reads the request body as text, refusing more than `maxBytes` (413) without buffering it all. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(request, maxBytes);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_request", "the body is not valid JSON");
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "payload_too_large", `the body is larger than ${Math.round(maxBytes / 1024)} KiB`);
}
