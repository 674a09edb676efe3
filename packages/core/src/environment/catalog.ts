/**
 * The tool list the model sees: names, descriptions and JSON-Schema parameters.
 *
 * - Builtin schemas come from each tool's zod `params` (`z.toJSONSchema`, input side, so
 *   defaults show), with the `$schema` key and JavaScript's safe-integer bounds removed.
 * - Tools that take a `description` get it here, as a required string, unless
 *   `callDescription` is false; then it is removed from every schema, overrides included.
 * - `tools.builtin` (system_config) replaces the defaults wholesale: its entries, in its order,
 *   are the builtin list; entries naming no tool of this environment are dropped (an unknown
 *   name, or the image tool the model's vision setting did not pick).
 */
import { z } from "zod";
import type { ToolDefinition } from "@penguin/omnimessage";

const DESCRIPTION_PARAM = {
  type: "string",
  description: "One short sentence saying what this call does and why (shown to the user).",
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON Schema of a zod parameter schema, trimmed for model consumption. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const full: Record<string, unknown> = z.toJSONSchema(schema, {
    io: "input",
    override: (ctx) => {
      const node: Record<string, unknown> = ctx.jsonSchema;
      if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
      if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    },
  });
  const { $schema: _dropped, ...rest } = full;
  return rest;
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
  params: z.ZodType;
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
