/**
 * The building blocks of builtin tool parameters, as effect/Schema.
 *
 * A tool's `params` is one `Schema.Struct` built from these, and it is the single source of
 * both the JSON Schema the model sees (catalog.ts) and argument decoding (arguments.ts). The
 * field helpers put the model-facing description (and the default) on the value schema
 * itself, not on the property signature: a struct with defaults is a transformation, and
 * effect's JSON Schema generation reads the encoded side, where only the value schema's
 * annotations survive. Refinements keep their own constraint metadata (`minLength`,
 * `minimum`, integer), which the argument errors read to say what was expected.
 */
import { Schema } from "effect";

/** A string with at least one character. */
export const NonEmptyString = Schema.String.pipe(Schema.minLength(1));

/** A whole number of at least `min`. */
export function wholeNumberFrom(min: number) {
  return Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(min));
}

/** A parameter the model must give. */
export function required<S extends Schema.Schema.AnyNoContext>(schema: S, description: string): S {
  return schema.annotations({ description }) as S;
}

/** A parameter the model may leave out; the tool sees `undefined` then. */
export function optional<S extends Schema.Schema.AnyNoContext>(schema: S, description: string) {
  return Schema.optional(schema.annotations({ description }) as S);
}

/** A parameter the model may leave out; the tool sees `value` then, and the model is told so. */
export function withDefault<S extends Schema.Schema.AnyNoContext>(schema: S, value: Schema.Schema.Type<S>, description: string) {
  const annotated = schema.annotations({ description, default: value }) as S;
  return Schema.optionalWith(annotated, { default: () => value });
}
