/**
 * Compiles an effect/Schema AST into a `Shape` (shape-decoder.ts): plain data the browser can
 * decode with, without loading effect. Runs in Node only, when envelope-shape.generated.ts
 * is regenerated (scripts/generate-envelope-shape.ts) and in the test that checks that file
 * is current.
 *
 * It accepts only the node kinds the decoder implements and throws on anything else (a
 * refinement, a transformation, a tuple with fixed elements, a symbol key…), naming the
 * schema path, so a schema change the browser decoder cannot follow fails loudly at
 * generation instead of being checked loosely. Union search trees are built here the way
 * effect's parser builds them (ParseResult's getSearchTree), so both try the same members
 * in the same order.
 */
import * as AST from "effect/SchemaAST";
import type { Shape, ShapeField, UnionTag } from "./shape-decoder.js";

/** A member's literal, non-optional fields, as effect's getLiterals finds them (decoding side). */
function literalFieldsOf(ast: AST.AST): Array<[string, AST.Literal]> {
  if (!AST.isTypeLiteral(ast)) return [];
  const out: Array<[string, AST.Literal]> = [];
  for (const ps of ast.propertySignatures) {
    const type = AST.encodedAST(ps.type);
    if (AST.isLiteral(type) && !ps.isOptional && typeof ps.name === "string") out.push([ps.name, type]);
  }
  return out;
}

function unionOf(ast: AST.Union, where: string): Shape {
  const tags = new Map<string, { buckets: Record<string, number[]>; literals: AST.Literal[]; candidates: AST.AST[] }>();
  const otherwise: number[] = [];
  const tagged: AST.AST[] = [];
  ast.types.forEach((member, index) => {
    const literals = literalFieldsOf(member);
    if (literals.length === 0) {
      otherwise.push(index);
      return;
    }
    tagged.push(member);
    for (let j = 0; j < literals.length; j++) {
      const [field, literal] = literals[j]!;
      const hash = String(literal.literal);
      let tag = tags.get(field);
      if (tag === undefined) {
        tag = { buckets: {}, literals: [], candidates: [] };
        tags.set(field, tag);
      }
      const bucket = Object.prototype.hasOwnProperty.call(tag.buckets, hash) ? tag.buckets[hash] : undefined;
      if (bucket !== undefined) {
        // Another member already owns this literal: try the member's next literal field, and
        // share the bucket only when this was its last one (effect's rule).
        if (j < literals.length - 1) continue;
        bucket.push(index);
      } else tag.buckets[hash] = [index];
      tag.literals.push(literal);
      tag.candidates.push(member);
      if (bucket === undefined) break;
    }
  });
  const tagList: UnionTag[] = [...tags].map(([field, tag]) => ({
    field,
    buckets: tag.buckets,
    expected: String(AST.Union.make(tag.literals)),
  }));
  return {
    kind: "union",
    expected: String(ast),
    members: ast.types.map((member, index) => shapeOf(member, `${where}|${index}`)),
    tagged: tagList,
    otherwise,
    expectedObject: tagged.length === ast.types.length ? String(ast) : String(AST.Union.make(tagged)),
  };
}

/** The shape of `ast`; `where` names the schema path in errors. */
export function shapeOf(ast: AST.AST, where = "root"): Shape {
  const expected = String(ast);
  switch (ast._tag) {
    case "StringKeyword":
      return { kind: "string", expected };
    case "NumberKeyword":
      return { kind: "number", expected };
    case "BooleanKeyword":
      return { kind: "boolean", expected };
    case "UnknownKeyword":
      return { kind: "unknown", expected };
    case "Literal":
      if (typeof ast.literal === "bigint") break;
      return { kind: "literal", value: ast.literal, expected };
    case "TypeLiteral": {
      const fields: ShapeField[] = ast.propertySignatures.map((ps) => {
        if (typeof ps.name !== "string") throw new Error(`shapeOf: ${where} has a symbol key; the browser decoder reads string keys only`);
        return { name: ps.name, optional: ps.isOptional, shape: shapeOf(ps.type, `${where}.${ps.name}`) };
      });
      const records = ast.indexSignatures.map((is) => {
        if (is.parameter._tag !== "StringKeyword") throw new Error(`shapeOf: ${where} has a ${is.parameter._tag} record key; the browser decoder reads string keys only`);
        return shapeOf(is.type, `${where}[string]`);
      });
      return { kind: "struct", expected, fields, records };
    }
    case "TupleType":
      if (ast.elements.length === 0 && ast.rest.length === 1) return { kind: "array", expected, item: shapeOf(ast.rest[0]!.type, `${where}[]`) };
      break;
    case "Union":
      return unionOf(ast, where);
  }
  throw new Error(
    `shapeOf: ${where} is a ${ast._tag} node (${expected}), which the browser decoder (shape-decoder.ts) does not implement; ` +
      "add that kind there, with its check as effect's parser does it, or keep the protocol's schemas to the kinds it reads",
  );
}

/**
 * The text of envelope-shape.generated.ts for `ast`: one function renders it, so the
 * generator and the staleness test compare the same thing.
 */
export function renderEnvelopeShapeModule(ast: AST.AST): string {
  return [
    "// Generated by scripts/generate-envelope-shape.ts from OmniMessageSchema (schema.ts): the",
    "// protocol's schemas compiled to the plain data the browser decoder (shape-decoder.ts)",
    "// interprets. Do not edit: change the schemas, then `npx --yes pnpm@10.34.8 --filter @penguin/omnimessage generate`;",
    "// test/browser-decoder.test.ts fails while this file is stale.",
    'import type { Shape } from "./shape-decoder.js";',
    "",
    `export const OMNI_MESSAGE_SHAPE: Shape = ${JSON.stringify(shapeOf(ast), null, 1)};`,
    "",
  ].join("\n");
}
