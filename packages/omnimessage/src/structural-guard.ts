/**
 * A fast yes/no check compiled from a schema's AST: the hot path of decoding Trace lines.
 *
 * effect's decoder is general (it builds an output object per struct, collects issues, can
 * run effects), which makes a 100k-line trace decode at less than half the speed of
 * `JSON.parse` alone. For schemas that only check (no transformation, as every protocol
 * schema here), a value passes or not, and that answer can be computed with a few closures
 * and no allocation. `compileStructuralGuard(ast)` walks the AST once and returns such a
 * check, mirroring what `ParseResult.decodeUnknown` does with its default options:
 *
 * - struct: an object, not null, not an array; each required field's value (`undefined`
 *   when absent) must pass its type, an optional field only when present; extra fields
 *   are ignored (the default `onExcessProperty: "ignore"`); index signatures check every
 *   own enumerable string key;
 * - union: passes when a member passes; members that share a required literal field
 *   (`type: "…"`) are picked by its value, as effect's own union does;
 * - literals by `===`, keywords by `typeof`, arrays by `Array.isArray` and each element;
 * - anything else (refinements, transformations, declarations, templates, recursion) is
 *   answered by effect's own decoder for that node, built once here.
 *
 * The contract is one-sided on purpose: `true` means effect's decoder accepts the value;
 * `false` means "ask the full decoder", which then either accepts it after all or produces
 * the error naming the bad field. So a gap in this file can only cost speed, never let a bad
 * line through: `decodeEnvelope` answers `true` at once and runs the full decoder on `false`.
 */
import * as Either from "effect/Either";
import * as ParseResult from "effect/ParseResult";
import * as Schema from "effect/Schema";
import type * as SchemaAST from "effect/SchemaAST";

export type StructuralGuard = (value: unknown) => boolean;

const always: StructuralGuard = () => true;

const isRecord = (value: unknown): value is Record<PropertyKey, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Compile `ast` into a check that answers `true` only for values its decoder accepts. */
export function compileStructuralGuard(ast: SchemaAST.AST): StructuralGuard {
  return compile(ast, new Map());
}

function compile(ast: SchemaAST.AST, memo: Map<SchemaAST.AST, StructuralGuard>): StructuralGuard {
  const known = memo.get(ast);
  if (known !== undefined) return known;
  const guard = build(ast, memo);
  memo.set(ast, guard);
  return guard;
}

function build(ast: SchemaAST.AST, memo: Map<SchemaAST.AST, StructuralGuard>): StructuralGuard {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal;
      return (value) => value === literal;
    }
    case "StringKeyword":
      return (value) => typeof value === "string";
    case "NumberKeyword":
      return (value) => typeof value === "number";
    case "BooleanKeyword":
      return (value) => typeof value === "boolean";
    case "UndefinedKeyword":
      return (value) => value === undefined;
    case "UnknownKeyword":
    case "AnyKeyword":
      return always;
    case "TupleType":
      if (ast.elements.length === 0 && ast.rest.length === 1) {
        const element = compile(ast.rest[0]!.type, memo);
        return (value) => {
          if (!Array.isArray(value)) return false;
          for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
          return true;
        };
      }
      return fullDecoderCheck(ast);
    case "TypeLiteral":
      return structGuard(ast, memo);
    case "Union":
      return unionGuard(ast, memo);
    default:
      return fullDecoderCheck(ast);
  }
}

function structGuard(ast: SchemaAST.TypeLiteral, memo: Map<SchemaAST.AST, StructuralGuard>): StructuralGuard {
  // An empty struct is effect's "not nullable" check, not a record check.
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return (value) => value !== null && value !== undefined;
  for (const is of ast.indexSignatures) if (is.parameter._tag !== "StringKeyword") return fullDecoderCheck(ast);
  const names = ast.propertySignatures.map((ps) => ps.name);
  const optional = ast.propertySignatures.map((ps) => ps.isOptional);
  const checks = ast.propertySignatures.map((ps) => compile(ps.type, memo));
  const indexChecks = ast.indexSignatures.map((is) => compile(is.type, memo)).filter((check) => check !== always);
  const count = names.length;
  return (value) => {
    if (!isRecord(value)) return false;
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      if (optional[i] && !Object.prototype.hasOwnProperty.call(value, name)) continue;
      if (!checks[i]!(value[name])) return false;
    }
    if (indexChecks.length > 0) {
      for (const key of Object.keys(value)) for (const check of indexChecks) if (!check(value[key])) return false;
    }
    return true;
  };
}

/** The required literal fields of a struct member (`type: "tool_call"`), by field name. */
function literalFields(ast: SchemaAST.AST): Map<PropertyKey, SchemaAST.LiteralValue> | undefined {
  if (ast._tag !== "TypeLiteral") return undefined;
  const out = new Map<PropertyKey, SchemaAST.LiteralValue>();
  for (const ps of ast.propertySignatures) if (!ps.isOptional && ps.type._tag === "Literal") out.set(ps.name, ps.type.literal);
  return out;
}

function unionGuard(ast: SchemaAST.Union, memo: Map<SchemaAST.AST, StructuralGuard>): StructuralGuard {
  const members = ast.types.map((member) => compile(member, memo));
  // A field every member fixes to a literal picks the candidates by its value.
  const fields = ast.types.map(literalFields);
  const first = fields[0];
  const discriminator = first === undefined || fields.some((f) => f === undefined) ? undefined : [...first.keys()].find((key) => fields.every((f) => f!.has(key)));
  if (discriminator === undefined) {
    return (value) => {
      for (const member of members) if (member(value)) return true;
      return false;
    };
  }
  const byTag = new Map<SchemaAST.LiteralValue, StructuralGuard[]>();
  fields.forEach((f, i) => {
    const tag = f!.get(discriminator)!;
    byTag.set(tag, [...(byTag.get(tag) ?? []), members[i]!]);
  });
  return (value) => {
    if (!isRecord(value)) return false;
    const candidates = byTag.get(value[discriminator] as SchemaAST.LiteralValue);
    if (candidates === undefined) return false;
    for (const candidate of candidates) if (candidate(value)) return true;
    return false;
  };
}

/** For a node this file does not mirror: effect's own decoder, built once. */
function fullDecoderCheck(ast: SchemaAST.AST): StructuralGuard {
  const decode = ParseResult.decodeUnknownEither(Schema.make(ast));
  return (value) => Either.isRight(decode(value));
}
