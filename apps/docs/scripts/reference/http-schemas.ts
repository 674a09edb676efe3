/**
 * Reading the JSON Schemas of the server's OpenAPI document for the HTTP reference: a schema
 * node in a few words, and a response body's fields as dotted paths (`usage.total`,
 * `items[].id`) two levels deep, following `$ref`s into the schema's own `$defs` (the form
 * effect's JSONSchema.make writes). Two levels keep a route's table readable; deeper shapes
 * are named by their type (a `$defs` name such as `ToolCallPayload`, or `object`).
 */

export type Json = Record<string, unknown>;

export const asJson = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});
export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface SchemaField {
  name: string;
  required: boolean;
  type: string;
}

export interface ResponseBody {
  status: string;
  contentType: string;
  /** The body as a whole in a few words (`object`, `array of object`). */
  shape: string;
  fields: SchemaField[];
}

/** How deep response fields are listed: a route's own fields and the fields of those. */
const FIELD_DEPTH = 2;

/** A JSON Schema node in a few words (`string`, `integer`, `one of a, b`, `array of string`). */
export function schemaWords(node: unknown): string {
  const s = asJson(node);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(String).join(", ")}`;
  if (s.const !== undefined) return JSON.stringify(s.const);
  const alternatives = asArray(s.anyOf ?? s.oneOf);
  if (alternatives.length > 0) return alternatives.map(schemaWords).join(" or ");
  if (s.type === "array") return `array of ${schemaWords(s.items)}`;
  if (typeof s.type === "string") return s.type;
  if (Array.isArray(s.type)) return s.type.join(" or ");
  if (typeof s.$ref === "string") return s.$ref.split("/").pop() ?? "object";
  return "any";
}

/** The node a `$ref` names in `defs` (by its last segment), or the node itself. */
function resolved(node: unknown, defs: Json): Json {
  const s = asJson(node);
  if (typeof s.$ref !== "string") return s;
  return asJson(defs[s.$ref.split("/").pop() ?? ""]);
}

/** The object schema a node describes: itself, a `$ref` to one, or the one object of a `X or null`. */
function objectSchema(node: unknown, defs: Json): Json | undefined {
  const s = resolved(node, defs);
  if (typeof s.properties === "object" && s.properties !== null) return s;
  const objects = asArray(s.anyOf ?? s.oneOf).map((alt) => objectSchema(alt, defs)).filter((o): o is Json => o !== undefined);
  return objects.length === 1 ? objects[0] : undefined;
}

/** The schema of the items of an array node (through `$ref` and `X or null`), if it is one. */
function itemsSchema(node: unknown, defs: Json): unknown {
  const s = resolved(node, defs);
  if (s.type === "array") return s.items;
  const arrays = asArray(s.anyOf ?? s.oneOf).map((alt) => resolved(alt, defs)).filter((alt) => alt.type === "array");
  return arrays.length === 1 ? arrays[0]?.items : undefined;
}

/** The fields of an object node as dotted paths, `depth` levels deep. */
export function schemaFields(node: unknown, defs: Json, prefix = "", depth = FIELD_DEPTH): SchemaField[] {
  const object = objectSchema(node, defs);
  if (object === undefined || depth === 0) return [];
  const required = asArray(object.required).map(String);
  return Object.entries(asJson(object.properties)).flatMap(([name, schema]) => {
    const path = `${prefix}${name}`;
    const items = itemsSchema(schema, defs);
    const inner = items === undefined ? schemaFields(schema, defs, `${path}.`, depth - 1) : schemaFields(items, defs, `${path}[].`, depth - 1);
    return [{ name: path, required: required.includes(name), type: schemaWords(schema) }, ...inner];
  });
}

/** The documented bodies of an operation's success responses (2xx with a schema). */
export function responseBodies(responses: unknown): ResponseBody[] {
  const bodies: ResponseBody[] = [];
  for (const [status, response] of Object.entries(asJson(responses))) {
    if (!status.startsWith("2")) continue;
    for (const [contentType, media] of Object.entries(asJson(asJson(response).content))) {
      const schema = asJson(asJson(media).schema);
      if (Object.keys(schema).length === 0) continue;
      const defs = asJson(schema.$defs);
      const items = itemsSchema(schema, defs);
      const fields = items === undefined ? schemaFields(schema, defs) : schemaFields(items, defs, "[].");
      bodies.push({ status, contentType, shape: schemaWords(resolved(schema, defs)), fields });
    }
  }
  return bodies;
}
