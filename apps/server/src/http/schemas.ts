/**
 * effect/Schema pieces shared by several resources: ids with the patterns core enforces,
 * numbers as they arrive in a query string or path, URLs, and the common response shapes.
 * Resource-specific schemas live in their route files. Messages are written for the person
 * reading the 400: they complete `body field "x": …`.
 */
import { APPROVAL_MODES, PROJECT_OR_AGENT_ID, USER_ID } from "@penguin/core";
import { THINKING_LEVELS } from "@penguin/models";
import { Schema } from "effect";

/** A string matching `pattern`, with the message a client sees when it does not. */
export function Matching(pattern: RegExp, message: string): Schema.filter<typeof Schema.String> {
  return Schema.String.pipe(Schema.pattern(pattern, { message: () => message }));
}

/** A string of `min`..`max` characters (max optional). */
export function Text(min: number, max?: number, minMessage?: string): Schema.Schema<string> {
  const atLeast = Schema.String.pipe(Schema.minLength(min, minMessage === undefined ? {} : { message: () => minMessage }));
  return max === undefined ? atLeast : atLeast.pipe(Schema.maxLength(max));
}

/** At most `max` characters. */
export function Capped(max: number): Schema.Schema<string> {
  return Schema.String.pipe(Schema.maxLength(max));
}

/** An integer sent as text (query strings and path segments), at least `min` and at most `max`. */
export function IntFromText(min: number, max?: number): Schema.Schema<number, string> {
  const atLeast = Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(min));
  return max === undefined ? atLeast : atLeast.pipe(Schema.lessThanOrEqualTo(max));
}

/** An absolute URL (http, https or any other scheme URL can parse). */
export const Url = Schema.String.pipe(Schema.filter((s) => URL.canParse(s), { message: () => "must be an absolute URL" }));

/** A struct field that may be absent; absent decodes to `value`. */
export function WithDefault<S extends Schema.Schema.AnyNoContext>(schema: S, value: Schema.Schema.Type<S>) {
  return Schema.optionalWith(schema, { default: () => value });
}

export const ProjectId = Matching(PROJECT_OR_AGENT_ID, "must be 2–64 lowercase letters, digits or _, starting with a letter");
export const AgentId = ProjectId;
export const UserId = Matching(USER_ID, "must be 2–32 lowercase letters, digits or _, starting with a letter");
export const Password = Text(8, 1024, "must be at least 8 characters");
export const ApprovalModeSchema = Schema.Literal(...APPROVAL_MODES);
export const ThinkingLevelSchema = Schema.Literal(...THINKING_LEVELS);

export const Ok = Schema.Struct({ ok: Schema.Literal(true) });

/** A JSON integer ≥ 1 (file indexes and line numbers in bodies). */
export const PositiveInt = Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1));
