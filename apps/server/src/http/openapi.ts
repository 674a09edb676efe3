/**
 * The OpenAPI 3.1 description, generated from the route table: the same effect/Schema
 * schemas that decode requests produce the parameter, body and response schemas
 * (`JSONSchema.make` with the `openApi3.1` target). Inputs are described as the client sends
 * them (a query number is a string there), which is what JSONSchema.make does for a
 * transformation. Path parameters come from the path
 * template (`:id` → `{id}`); routes that need a user carry the cookie security scheme, and
 * every route lists the error shape for the statuses the table itself can answer.
 */
import { JSONSchema, Schema } from "effect";
import type { DescribedRoute } from "./route-table.js";
import type { InputSchema } from "./validate.js";

type Json = Record<string, unknown>;

const ERROR_SCHEMA = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String, field: Schema.optional(Schema.String) }),
});

function schemaOf(schema: InputSchema): Json {
  const { $schema: _drop, ...rest } = JSONSchema.make(schema, { target: "openApi3.1" });
  return rest;
}

function propertiesOf(schema: InputSchema | undefined): { properties: Record<string, unknown>; required: string[] } {
  if (schema === undefined) return { properties: {}, required: [] };
  const json = schemaOf(schema);
  const properties = typeof json.properties === "object" && json.properties !== null ? { ...json.properties } : {};
  const required = Array.isArray(json.required) ? json.required.filter((r): r is string => typeof r === "string") : [];
  return { properties, required };
}

function operation(route: DescribedRoute): Json {
  const pathNames = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? "");
  if (route.path.endsWith("/*")) pathNames.push("rest");
  const pathProps = propertiesOf(route.params).properties;
  const query = propertiesOf(route.query);
  const parameters = [
    ...pathNames.map((name) => ({ name, in: "path", required: true, schema: pathProps[name] ?? { type: "string" } })),
    ...Object.entries(query.properties).map(([name, schema]) => ({ name, in: "query", required: query.required.includes(name), schema })),
  ];
  const responses: Json = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const type = spec.contentType ?? "application/json";
    responses[status] = spec.schema === undefined ? { description: spec.description } : { description: spec.description, content: { [type]: { schema: schemaOf(spec.schema) } } };
  }
  const errors: Record<string, string> = { "400": "Invalid input (the field is named)" };
  if (route.access !== "public") errors["401"] = "Not signed in";
  if (route.access !== "public" && !route.beforePasswordChange) errors["403"] = "password_change_required: the initial password must be changed first";
  if (route.access !== "public" && route.access !== "user") errors["404"] = "Not found, or not accessible to this user";
  for (const [status, description] of Object.entries(errors)) {
    responses[status] ??= { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  }
  const op: Json = { operationId: route.operationId, summary: route.summary, tags: [route.tag], parameters, responses };
  if (route.body !== undefined) op.requestBody = { required: true, content: { "application/json": { schema: schemaOf(route.body) } } };
  if (route.access !== "public") op.security = [{ sessionCookie: [] }];
  return op;
}

export function openApiDocument(routes: readonly DescribedRoute[], info: { title: string; version: string }): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info,
    paths,
    components: {
      schemas: { Error: schemaOf(ERROR_SCHEMA) },
      securitySchemes: { sessionCookie: { type: "apiKey", in: "cookie", name: "penguin_session" } },
    },
  };
}

/** `/a/:id/b/:file{.+}/*` → `/a/{id}/b/{file}/{rest}`: multi-segment parameters and the rest wildcard become named parameters. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}").replace(/\/\*$/, "/{rest}");
}
