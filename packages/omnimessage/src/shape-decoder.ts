/**
 * A decoder that runs the protocol's schemas without loading effect: it interprets a "shape",
 * plain data compiled from the effect/Schema AST of `OmniMessageSchema` (shape-of-schema.ts
 * compiles it; envelope-shape.generated.ts holds the result). The web app decodes every SSE
 * event and history envelope with it, because effect/Schema costs about 55 KB gzip in a
 * browser bundle (its parser reaches the fiber runtime) and the chat page's whole budget is
 * 100 KB.
 *
 * Shaped to answer exactly what `decodeEnvelope` (schema.ts) answers:
 * - the node kinds are the ones the protocol uses (keywords, literals, structs with optional
 *   `exact` fields and string-keyed records, arrays, unions) and no others: the compiler
 *   refuses any other schema node, so a new kind of schema cannot be decoded loosely here;
 * - each check is effect's own (a struct wants a non-array object; a required field that is
 *   absent is checked as `undefined`; a present optional field must match), and fields are
 *   visited in schema order, stopping at the first bad one, as `errors: "first"` does;
 * - unions pick their candidates with effect's search tree (members keyed by their literal
 *   fields, `String(value)` into buckets, the rest tried after), compiled ahead of time;
 * - a value that decodes is answered as the very object given, like the effect decoder
 *   (the schemas do not transform).
 * test/fuzz/omnimessage/shape-decoder.test.ts checks accept/reject and the field named
 * against the effect decoder on generated envelopes, mutated envelopes and arbitrary JSON.
 *
 * Errors name the path and say what was expected, in effect's words (the expected text is
 * effect's own description of the node, stored in the shape): one issue, the most specific
 * one, e.g. `["payload"]["status"]: Expected "completed" | "failed" | …, actual "done"`.
 */
import type { EnvelopeDecodeResult } from "./schema.js";

/** One node of a compiled schema. `expected` is what an error says was expected here. */
export type Shape =
  | { readonly kind: "string" | "number" | "boolean" | "unknown"; readonly expected: string }
  | { readonly kind: "literal"; readonly value: string | number | boolean | null; readonly expected: string }
  | {
      readonly kind: "struct";
      readonly expected: string;
      readonly fields: readonly ShapeField[];
      /** Index signatures with string keys (`Schema.Record({ key: Schema.String, value })`): their value shapes. */
      readonly records: readonly Shape[];
    }
  | { readonly kind: "array"; readonly expected: string; readonly item: Shape }
  | {
      readonly kind: "union";
      readonly expected: string;
      readonly members: readonly Shape[];
      /** effect's search tree: members reachable through a literal field, by field name. */
      readonly tagged: readonly UnionTag[];
      /** Members with no literal field: always tried, after the tagged ones. */
      readonly otherwise: readonly number[];
      /** What a value that is not an object was expected to be (the tagged members). */
      readonly expectedObject: string;
    };

export interface ShapeField {
  readonly name: string;
  readonly optional: boolean;
  readonly shape: Shape;
}

export interface UnionTag {
  readonly field: string;
  /** `String(literal)` → indexes into `members`, in member order. */
  readonly buckets: Readonly<Record<string, readonly number[]>>;
  /** The literals of this field, as effect describes their union (for "Expected …"). */
  readonly expected: string;
}

export type PathKey = string | number;

/**
 * A failed check. Built cheaply, because a union tries members that fail on the way to the
 * one that matches (a streamed delta passes the complete-message union first): the path is
 * collected innermost first and the message is only written for the issue reported.
 */
interface Issue {
  /** Keys from the failing node up to the node checked (reversed at the end). */
  readonly reversedPath: PathKey[];
  /** What was expected; undefined for a required field that is absent ("is missing"). */
  readonly expected: string | undefined;
  readonly actual: unknown;
  /** The value matched no union member's literal tag: the least specific kind of error. */
  readonly untagged: boolean;
}

const isObjectLike = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

function formatActual(v: unknown): string {
  if (v === undefined) return "undefined";
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

const typeIssue = (expected: string, actual: unknown, untagged = false): Issue => ({ reversedPath: [], expected, actual, untagged });
const missingIssue = (untagged: boolean): Issue => ({ reversedPath: [], expected: undefined, actual: undefined, untagged });

/** `issue`, moved one level down: it happened under `key`. */
function under(key: PathKey, issue: Issue): Issue {
  issue.reversedPath.push(key);
  return issue;
}

/** Checks `value` against `shape`: undefined when it matches, else the first issue. */
function check(shape: Shape, value: unknown): Issue | undefined {
  switch (shape.kind) {
    case "string":
    case "number":
    case "boolean":
      return typeof value === shape.kind ? undefined : typeIssue(shape.expected, value);
    case "unknown":
      return undefined;
    case "literal":
      return value === shape.value ? undefined : typeIssue(shape.expected, value);
    case "struct":
      return checkStruct(shape, value);
    case "array": {
      if (!Array.isArray(value)) return typeIssue(shape.expected, value);
      for (let i = 0; i < value.length; i++) {
        const issue = check(shape.item, value[i]);
        if (issue !== undefined) return under(i, issue);
      }
      return undefined;
    }
    case "union":
      return checkUnion(shape, value);
  }
}

function checkStruct(shape: Extract<Shape, { kind: "struct" }>, value: unknown): Issue | undefined {
  // An empty struct is effect's "anything but null and undefined".
  if (shape.fields.length === 0 && shape.records.length === 0) {
    return value === null || value === undefined ? typeIssue(shape.expected, value) : undefined;
  }
  if (!isObjectLike(value) || Array.isArray(value)) return typeIssue(shape.expected, value);
  for (const field of shape.fields) {
    const present = hasOwn(value, field.name);
    if (!present && field.optional) continue;
    const issue = check(field.shape, value[field.name]);
    if (issue !== undefined) return under(field.name, present ? issue : missingIssue(false));
  }
  for (const record of shape.records) {
    for (const key of Object.keys(value)) {
      const issue = check(record, value[key]);
      if (issue !== undefined) return under(key, issue);
    }
  }
  return undefined;
}

function checkUnion(shape: Extract<Shape, { kind: "union" }>, value: unknown): Issue | undefined {
  // Members are tried in effect's order: each tag field's bucket for the value's tag, then
  // the members without a literal field. The first that matches wins.
  let tagIssues: Issue[] | undefined;
  let memberIssues: Issue[] | undefined;
  if (shape.tagged.length > 0) {
    if (isObjectLike(value)) {
      for (const tag of shape.tagged) {
        if (!hasOwn(value, tag.field)) {
          (tagIssues ??= []).push(under(tag.field, missingIssue(true)));
          continue;
        }
        const hash = String(value[tag.field]);
        if (!hasOwn(tag.buckets, hash)) {
          (tagIssues ??= []).push(under(tag.field, typeIssue(tag.expected, value[tag.field], true)));
          continue;
        }
        for (const index of tag.buckets[hash]!) {
          const issue = check(shape.members[index]!, value);
          if (issue === undefined) return undefined;
          (memberIssues ??= []).push(issue);
        }
      }
    } else (tagIssues ??= []).push(typeIssue(shape.expectedObject, value, true));
  }
  for (const index of shape.otherwise) {
    const issue = check(shape.members[index]!, value);
    if (issue === undefined) return undefined;
    (memberIssues ??= []).push(issue);
  }
  // Report the most specific issue: a member that got past its tag beats a tag mismatch.
  const specific = memberIssues?.find((issue) => !issue.untagged);
  if (specific !== undefined) {
    // Every member failed on the value itself (a union of literals or keywords): say what the
    // union as a whole expects, as effect does for a single top-level failure.
    if (tagIssues === undefined && memberIssues!.every((issue) => issue.reversedPath.length === 0)) return typeIssue(shape.expected, value);
    return specific;
  }
  return tagIssues?.[0] ?? memberIssues?.[0] ?? typeIssue(shape.expected, value, true);
}

const describePath = (path: readonly PathKey[]) => path.map((key) => `[${JSON.stringify(key)}]`).join("");
const messageOf = (issue: Issue) => (issue.expected === undefined ? "is missing" : `Expected ${issue.expected}, actual ${formatActual(issue.actual)}`);

/** Where `value` first fails `shape` (a path from the root, and what is wrong there), or undefined when it matches. */
export function shapeIssue(shape: Shape, value: unknown): { path: readonly PathKey[]; message: string } | undefined {
  const issue = check(shape, value);
  return issue === undefined ? undefined : { path: [...issue.reversedPath].reverse(), message: messageOf(issue) };
}

/**
 * A decoder over a compiled shape with `decodeEnvelope`'s contract: the value itself when it
 * matches, else one line naming the path of the bad field.
 */
export function shapeDecoder(shape: Shape): (value: unknown) => EnvelopeDecodeResult {
  return (value) => {
    const issue = shapeIssue(shape, value);
    if (issue === undefined) return { ok: true, message: value as Extract<EnvelopeDecodeResult, { ok: true }>["message"] };
    const path = describePath(issue.path);
    return { ok: false, error: path === "" ? issue.message : `${path}: ${issue.message}` };
  };
}
