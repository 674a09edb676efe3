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
 */
import { JSONSchema, type Schema } from "effect";
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
 * Each schema's JSON Schema, derived once: `JSONSchema.make` walks the whole AST, and every
 * session (a resume too) lists the builtin tools before its first request. Schemas are
 * immutable, so the answer never goes stale; callers get their own copy to change.
 */
const jsonSchemaCache = new WeakMap<Schema.Schema.AnyNoContext, Record<string, unknown>>();

/** JSON Schema of a tool's parameter schema, as the model sees it (see the header). */
export function jsonSchemaOf(schema: Schema.Schema.AnyNoContext): Record<string, unknown> {
  let plain = jsonSchemaCache.get(schema);
  if (plain === undefined) {
    const full: Record<string, unknown> = { ...JSONSchema.make(schema) };
    const definitions = isRecord(full.$defs) ? full.$defs : {};
    plain = plainNode(full, definitions, []) as Record<string, unknown>;
    jsonSchemaCache.set(schema, plain);
  }
  return structuredClone(plain);
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
