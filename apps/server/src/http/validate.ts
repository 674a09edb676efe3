/**
 * Input validation: params, query and JSON bodies through effect/Schema, with one rule for failures.
 *
 * A failure is a 400 `invalid_request` whose `field` is the dotted path of the first bad
 * value and whose message says where it was (body, query or path) and what was wrong, so a
 * client can point at the input without parsing text. Decoders are built once per schema
 * (`inputDecoder`, at route registration) because building one per request is many times
 * slower. Bodies are read by the express body reader in http/json-body.ts (byte cap, depth
 * cap); the content-type itself is enforced earlier, for every write, by the write guard.
 */
import { Either, ParseResult, Schema } from "effect";
import { ApiError } from "./api-error.js";

export type InputPart = "body" | "query" | "path";

/** Any schema the API decodes input with: no context requirements, any encoded shape. */
export type InputSchema = Schema.Schema.AnyNoContext;

export type InputDecoder<S extends InputSchema> = (value: unknown) => Schema.Schema.Type<S>;

/** Builds the decoder for one part once; calling it throws the 400 that names the field. */
export function inputDecoder<S extends InputSchema>(schema: S, part: InputPart): InputDecoder<S> {
  const decode = Schema.decodeUnknownEither(schema);
  return (value) => {
    const result = decode(value);
    if (Either.isRight(result)) return result.right;
    throw invalidInput(result.left, part);
  };
}

/** One-off decoding (stored settings, tokens): the same 400 as a route's input would give. */
export function parseInput<S extends InputSchema>(schema: S, value: unknown, part: InputPart): Schema.Schema.Type<S> {
  return inputDecoder(schema, part)(value);
}

function invalidInput(error: ParseResult.ParseError, part: InputPart): ApiError {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0];
  const path = issue?.path.map(String).join(".") ?? "";
  const where = path === "" ? `the ${part}` : `${part} field "${path}"`;
  const message = `${where}: ${issue?.message ?? "is invalid"}`;
  return new ApiError(400, "invalid_request", message, path === "" ? {} : { field: path });
}
