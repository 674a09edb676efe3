/**
 * The failures of an effect/Schema decode, flattened to one entry per offending field.
 *
 * Effect reports a failed decode as a tree (struct → pointer → union → refinement → type).
 * Tool arguments and system_config.yaml both need the same thing from that tree: the field's
 * path, whether it was missing or held a wrong value, and the schema node that rejected it,
 * so each caller can phrase the message for its reader (a model resending a call, a user
 * editing a file). Two rules make the leaves useful:
 *   - an optional field is a union with `undefined`; that branch is dropped, so a bad value
 *     in an optional field is reported against the field's own schema;
 *   - a union that still has several candidates (an enum of literals) is one leaf: "one of …",
 *     not one complaint per literal;
 *   - a value of the wrong kind for a struct with defaults (a transformation) is reported
 *     against the transformation, which carries the struct's annotations.
 */
import { SchemaAST, type ParseResult } from "effect";

export interface SchemaProblem {
  /** Field path from the decoded root, e.g. `["tools", "mcpServers", 0, "name"]`. */
  path: PropertyKey[];
  /** `missing`: a required key is absent; `invalid`: the value is there and wrong; `unexpected`: a key the schema does not know (only when decoding with `onExcessProperty: "error"`). */
  kind: "missing" | "invalid" | "unexpected";
  /** The schema node that rejected the value (a keyword, a refinement, a union, a struct). */
  ast: SchemaAST.AST;
  /** The value found at `path`. */
  actual: unknown;
  /** The message a filter returned (a string, or `{ path, message }`), when it returned one. */
  message?: string;
  /** The leaf issue itself, for effect's own formatters (which read `message` annotations). */
  issue: ParseResult.ParseIssue;
}

function isUndefinedBranch(issue: ParseResult.ParseIssue): boolean {
  return issue._tag === "Type" && issue.ast._tag === "UndefinedKeyword";
}

function childrenOf(issue: ParseResult.Composite): ParseResult.ParseIssue[] {
  return Array.isArray(issue.issues) ? [...issue.issues] : [issue.issues as ParseResult.ParseIssue];
}

function collect(issue: ParseResult.ParseIssue, path: PropertyKey[], out: SchemaProblem[]): void {
  switch (issue._tag) {
    case "Pointer": {
      const more = Array.isArray(issue.path) ? issue.path : [issue.path];
      collect(issue.issue, [...path, ...(more as PropertyKey[])], out);
      return;
    }
    case "Transformation":
      if (issue.kind === "Encoded" && issue.issue._tag === "Type") {
        out.push({ path, kind: "invalid", ast: issue.ast, actual: issue.actual, issue });
      } else collect(issue.issue, path, out);
      return;
    case "Refinement":
      if (issue.kind === "From") {
        collect(issue.issue, path, out);
        return;
      }
      if (issue.issue._tag === "Type") {
        const message = issue.issue.message;
        out.push({ path, kind: "invalid", ast: issue.ast, actual: issue.actual, issue, ...(message === undefined ? {} : { message }) });
      } else collect(issue.issue, path, out); // a filter that names sub-fields: `{ path, message }`
      return;
    case "Composite": {
      const children = childrenOf(issue);
      if (issue.ast._tag === "Union") {
        const candidates = children.filter((c) => !isUndefinedBranch(c));
        const only = candidates[0];
        if (candidates.length === 1 && only !== undefined) collect(only, path, out);
        else out.push({ path, kind: "invalid", ast: withoutUndefined(issue.ast), actual: issue.actual, issue });
        return;
      }
      for (const child of children) collect(child, path, out);
      return;
    }
    case "Missing":
      out.push({ path, kind: "missing", ast: issue.ast.type, actual: undefined, issue });
      return;
    case "Type":
    case "Forbidden":
      out.push({ path, kind: "invalid", ast: issue.ast, actual: issue.actual, issue, ...(issue.message === undefined ? {} : { message: issue.message }) });
      return;
    case "Unexpected":
      out.push({ path, kind: "unexpected", ast: SchemaAST.neverKeyword, actual: issue.actual, issue });
      return;
  }
}

/** `A | B | undefined` → `A | B`: the optional branch says nothing about what was expected. */
function withoutUndefined(ast: SchemaAST.Union): SchemaAST.AST {
  const kept = ast.types.filter((t) => t._tag !== "UndefinedKeyword");
  if (kept.length === ast.types.length) return ast;
  return kept.length === 1 && kept[0] !== undefined ? kept[0] : SchemaAST.Union.make(kept, ast.annotations);
}

/** Every offending field of a failed decode, in the schema's field order. */
export function schemaProblems(error: ParseResult.ParseError): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  collect(error.issue, [], out);
  return out;
}

/** The literals a node accepts, when it is a literal or a union of literals. */
export function literalsOf(ast: SchemaAST.AST): SchemaAST.LiteralValue[] | undefined {
  if (ast._tag === "Literal") return [ast.literal];
  if (ast._tag !== "Union") return undefined;
  const out: SchemaAST.LiteralValue[] = [];
  for (const member of ast.types) {
    const inner = literalsOf(member);
    if (inner === undefined) return undefined;
    out.push(...inner);
  }
  return out;
}
