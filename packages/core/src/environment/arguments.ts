/**
 * Tool-call arguments: from the model's JSON string to typed parameters, or to an error the
 * model can act on. Every message names the offending field, because the model's only way to
 * recover is to resend the call with that field fixed.
 *
 * An empty string counts as `{}` (some providers send it for calls without arguments); then
 * the missing required fields are reported like any other. Decoding is the tool's
 * effect/Schema (every problem at once, unknown keys ignored); each problem reads
 * `` `field`: missing required parameter `` or `` `field`: Invalid input: expected …, got … ``,
 * where "expected" comes from the schema node that refused the value.
 */
import { Either, type ParseResult, Schema, SchemaAST } from "effect";
import { literalsOf, schemaProblems, type SchemaProblem } from "../schema-issues.js";

export type ParsedArguments<P> =
  | { ok: true; value: P; description?: string }
  | { ok: false; error: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/** Parses the raw JSON into an object, or explains why it is not one. */
export function parseArgumentsObject(
  toolName: string,
  raw: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (raw.trim() === "") return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error: `Invalid arguments for ${toolName}: not valid JSON (${detail}). Resend the call with one complete JSON object.`,
    };
  }
  if (!isRecord(parsed)) {
    return { ok: false, error: `Invalid arguments for ${toolName}: expected a JSON object, got ${kindOf(parsed)}.` };
  }
  return { ok: true, value: parsed };
}

/** The constraints of a refinement chain (`minLength`, `minimum`, integer), innermost first. */
function constraintsOf(ast: SchemaAST.AST): { base: SchemaAST.AST; constraints: Record<string, unknown> } {
  const constraints: Record<string, unknown> = {};
  let node = ast;
  while (SchemaAST.isRefinement(node)) {
    const fragment = SchemaAST.getJSONSchemaAnnotation(node);
    if (fragment._tag === "Some") Object.assign(constraints, fragment.value);
    node = node.from;
  }
  return { base: node, constraints };
}

/** What the schema node wanted, in a few words: `string`, `a whole number of at least 0`, `one of "a", "b"`. */
export function expectedOf(ast: SchemaAST.AST): string {
  const literals = literalsOf(ast);
  if (literals !== undefined) return literals.length === 1 ? JSON.stringify(literals[0]) : `one of ${literals.map((l) => JSON.stringify(l)).join(", ")}`;
  switch (ast._tag) {
    case "StringKeyword":
      return "string";
    case "NumberKeyword":
      return "number";
    case "BooleanKeyword":
      return "boolean";
    case "TypeLiteral":
      return "an object";
    case "TupleType":
      return "an array";
    case "Transformation":
      return expectedOf(ast.from);
  }
  const { base, constraints } = constraintsOf(ast);
  const bounds: string[] = [];
  if (typeof constraints.minimum === "number") bounds.push(`at least ${constraints.minimum}`);
  if (typeof constraints.maximum === "number") bounds.push(`at most ${constraints.maximum}`);
  const range = bounds.length === 0 ? "" : ` of ${bounds.join(" and ")}`;
  if (base._tag === "NumberKeyword") return `${constraints.type === "integer" ? "a whole number" : "a number"}${range}`;
  if (base._tag === "StringKeyword") {
    const min = constraints.minLength;
    if (min === 1) return "a non-empty string";
    return typeof min === "number" ? `a string of at least ${min} characters` : "a string";
  }
  const description = SchemaAST.getDescriptionAnnotation(ast);
  return description._tag === "Some" ? description.value : String(ast);
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function describeProblem(problem: SchemaProblem): string {
  const path = problem.path.map(String).join(".");
  const field = path === "" ? "arguments" : `\`${path}\``;
  if (problem.kind === "missing") return `${field}: missing required parameter`;
  if (problem.kind === "unexpected") return `${field}: not a parameter of this tool`;
  return `${field}: Invalid input: expected ${expectedOf(problem.ast)}, got ${shown(problem.actual)}`;
}

type Decode = (input: unknown) => Either.Either<unknown, ParseResult.ParseError>;
/** One decoder per tool schema, built on first use (building one per call is the slow path). */
const decoders = new WeakMap<object, Decode>();

function decoderOf<P>(schema: Schema.Schema<P, any>): (input: unknown) => Either.Either<P, ParseResult.ParseError> {
  let decode = decoders.get(schema);
  if (decode === undefined) {
    decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" });
    decoders.set(schema, decode);
  }
  return decode as (input: unknown) => Either.Either<P, ParseResult.ParseError>;
}

/**
 * Validates arguments against a tool's schema. With `requireDescription`, a non-empty
 * `description` string must be present too; it is returned apart from the parameters.
 */
export function parseToolArguments<P>(
  toolName: string,
  raw: string,
  schema: Schema.Schema<P, any>,
  options: { requireDescription: boolean },
): ParsedArguments<P> {
  const object = parseArgumentsObject(toolName, raw);
  if (!object.ok) return object;
  const input = object.value;
  const problems: string[] = [];
  const result = decoderOf(schema)(input);
  if (Either.isLeft(result)) problems.push(...schemaProblems(result.left).map(describeProblem));
  const description = input.description;
  if (options.requireDescription) {
    if (description === undefined) problems.push("`description`: missing required parameter");
    else if (typeof description !== "string" || description.trim() === "") {
      problems.push("`description`: expected a non-empty string");
    }
  }
  if (problems.length > 0 || Either.isLeft(result)) {
    return { ok: false, error: `Invalid arguments for ${toolName}: ${problems.join("; ")}.` };
  }
  return typeof description === "string"
    ? { ok: true, value: result.right, description }
    : { ok: true, value: result.right };
}
