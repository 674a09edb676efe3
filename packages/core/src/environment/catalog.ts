/**
 * The tool list the model sees: names, descriptions and JSON-Schema parameters.
 *
 * - Builtin schemas come from each tool's effect/Schema `params` (`JSONSchema.make`, the
 *   encoded side, so defaulted keys are optional and their defaults show), made plain for
 *   every provider: no `$schema`, no `$defs`/`$ref` (inlined), no single-member `allOf`
 *   wrappers, no `title`s (effect names its refinements there: `minLength(1)`), and no
 *   `additionalProperties: false` (unknown keys are ignored when decoding, so the model is
 *   not told they are forbidden).
 * - Tools that take a `description` get it here, as a required string, unless
 *   `callDescription` is false; then it is removed from every schema, overrides included.
 * - `tools.builtin` (system_config) replaces the defaults wholesale: its entries, in its order,
 *   are the builtin list; entries naming no tool of this environment are dropped (an unknown
 *   name, or the image tool the model's vision setting did not pick).
 * - The builtin tools' answers are made at build time (`tool-json-schemas.generated.ts`, by
 *   `npm run generate`) and seeded into the cache (`primeJsonSchemas`), so a start does not
 *   walk their ASTs; `deriveJsonSchema` stays the one derivation, for the generator and for
 *   any schema the file does not hold or holds for other fields.
 */
import { JSONSchema, Schema } from "effect";
import type { ToolDefinition } from "@penguin/omnimessage";

const DESCRIPTION_PARAM = {
  type: "string",
  description: "One short sentence saying what this call does and why (shown to the user).",
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const DEFINITIONS_PREFIX = "#/$defs/";
/** Keys whose values are data (a default, the allowed values), not schemas: copied as they are. */
const DATA_KEYS = new Set(["default", "enum", "const", "examples", "required"]);

/**
 * One JSON Schema node made plain: references replaced by their definitions, a lone `allOf`
 * member merged into the node (the node's own keys win: they are the more specific ones),
 * titles and `additionalProperties: false` dropped. Recurses through every nested schema.
 */
function plainNode(node: unknown, definitions: Record<string, unknown>, resolving: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => plainNode(n, definitions, resolving));
  if (!isRecord(node)) return node;
  let own: Record<string, unknown> = { ...node };
  const ref = own.$ref;
  if (typeof ref === "string" && ref.startsWith(DEFINITIONS_PREFIX)) {
    const name = ref.slice(DEFINITIONS_PREFIX.length);
    const target = definitions[name];
    if (resolving.includes(name) || !isRecord(target)) {
      throw new Error(`tool schema: cannot inline ${ref} (${target === undefined ? "undefined" : "recursive"})`);
    }
    const { $ref: _ref, ...rest } = own;
    own = { ...(plainNode(target, definitions, [...resolving, name]) as Record<string, unknown>), ...rest };
  }
  const allOf = own.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0])) {
    const { allOf: _allOf, ...rest } = own;
    own = { ...(plainNode(allOf[0], definitions, resolving) as Record<string, unknown>), ...rest };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(own)) {
    if (key === "title" || key === "$schema" || key === "$defs") continue;
    if (key === "additionalProperties" && value === false) continue;
    if (DATA_KEYS.has(key)) out[key] = value;
    else if ((key === "properties" || key === "patternProperties") && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, v]) => [name, plainNode(v, definitions, resolving)]));
    } else out[key] = plainNode(value, definitions, resolving);
  }
  return out;
}

/**
 * JSON Schema of a tool's parameter schema, as the model sees it (see the header), derived
 * now: `JSONSchema.make` walks the whole AST, then the answer is made plain.
 */
export function deriveJsonSchema(schema: Schema.Schema.AnyNoContext): Record<string, unknown> {
  const full: Record<string, unknown> = { ...JSONSchema.make(schema) };
  const definitions = isRecord(full.$defs) ? full.$defs : {};
  return plainNode(full, definitions, []) as Record<string, unknown>;
}

/**
 * Each schema's JSON Schema, derived (or primed) once: every session (a resume too) lists the
 * builtin tools before its first request. Schemas are immutable, so the answer never goes
 * stale; callers get their own copy to change.
 */
const jsonSchemaCache = new WeakMap<Schema.Schema.AnyNoContext, Record<string, unknown>>();

/** JSON Schema of a tool's parameter schema, as the model sees it (see the header). */
export function jsonSchemaOf(schema: Schema.Schema.AnyNoContext): Record<string, unknown> {
  let plain = jsonSchemaCache.get(schema);
  if (plain === undefined) {
    plain = deriveJsonSchema(schema);
    jsonSchemaCache.set(schema, plain);
  }
  return structuredClone(plain);
}

/** One tool's entry in tool-json-schemas.generated.ts. */
export interface GeneratedJsonSchema {
  /** `paramsFingerprint` of the schema the entry was made from. */
  fingerprint: string;
  /** What `deriveJsonSchema` gave for it. */
  parameters: Record<string, unknown>;
}

/**
 * A fingerprint of a parameter struct that costs no walk: its field names in order, `?` after
 * the ones the model may leave out. A field added, removed, renamed or made optional since the
 * generated file was written shows here; a changed description or default does not (the test
 * beside the generated file compares it with a fresh derivation). Undefined for a schema that
 * is not a struct: no entry is taken for it.
 */
export function paramsFingerprint(schema: Schema.Schema.AnyNoContext): string | undefined {
  const fields = (schema as { fields?: unknown }).fields;
  if (!isRecord(fields)) return undefined;
  return Object.entries(fields)
    .map(([name, field]) => (Schema.isPropertySignature(field) ? `${name}?` : name))
    .join(" ");
}

/**
 * Seeds the cache with generated answers, one per schema: an entry is taken only when its
 * fingerprint is the schema's own; otherwise (or with no entry) the schema is left to
 * `deriveJsonSchema` on first use. A schema already answered keeps its answer. Returns how
 * many entries matched their schema.
 */
export function primeJsonSchemas(
  entries: Iterable<readonly [Schema.Schema.AnyNoContext, GeneratedJsonSchema | undefined]>,
): number {
  let matched = 0;
  for (const [schema, generated] of entries) {
    if (generated === undefined) continue;
    const fingerprint = paramsFingerprint(schema);
    if (fingerprint === undefined || fingerprint !== generated.fingerprint) continue;
    if (!jsonSchemaCache.has(schema)) jsonSchemaCache.set(schema, generated.parameters);
    matched += 1;
  }
  return matched;
}

/** Adds the required `description` string parameter to an object schema. */
export function withDescriptionParam(parameters: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(parameters.properties) ? parameters.properties : {};
  const required = Array.isArray(parameters.required) ? parameters.required.filter((r) => typeof r === "string") : [];
  return {
    ...parameters,
    properties: { ...properties, description: DESCRIPTION_PARAM },
    required: [...required.filter((r) => r !== "description"), "description"],
  };
}

/** Removes a `description` parameter from an object schema (the `callDescription: false` rule). */
export function withoutDescriptionParam(parameters: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...parameters };
  if (isRecord(parameters.properties)) {
    const { description: _dropped, ...properties } = parameters.properties;
    out.properties = properties;
  }
  if (Array.isArray(parameters.required)) out.required = parameters.required.filter((r) => r !== "description");
  return out;
}

export interface CatalogEntry {
  name: string;
  description: string;
  params: Schema.Schema.AnyNoContext;
  takesDescription: boolean;
}

export function builtinDefinition(tool: CatalogEntry, callDescription: boolean): ToolDefinition {
  const base = jsonSchemaOf(tool.params);
  const parameters = tool.takesDescription && callDescription ? withDescriptionParam(base) : base;
  return { name: tool.name, description: tool.description, parameters };
}

/**
 * The builtin part of the tool list: the defaults, or the override filtered to the tools
 * this environment has.
 */
export function builtinDefinitions(
  tools: readonly CatalogEntry[],
  options: { callDescription: boolean; override?: readonly ToolDefinition[] },
): ToolDefinition[] {
  if (options.override === undefined) return tools.map((t) => builtinDefinition(t, options.callDescription));
  const known = new Set(tools.map((t) => t.name));
  return options.override
    .filter((d) => known.has(d.name))
    .map((d) => {
      if (options.callDescription || d.parameters === undefined) return { ...d };
      return { ...d, parameters: withoutDescriptionParam(d.parameters) };
    });
}
