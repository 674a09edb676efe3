/**
 * Server metadata: the version (public: the web app shows it before sign-in) and the
 * OpenAPI 3.1 description generated from this route table (public: it describes, it does
 * not reveal data). The document is built on first request, after every route was added.
 */
import { Schema } from "effect";
import { json } from "../http/respond.js";
import { openApiDocument } from "../http/openapi.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { OpenApiDocument } from "../contract/index.js";

export function metaRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/api/version",
      operationId: "meta.version",
      summary: "Server version",
      tag: "meta",
      access: "public",
      responses: { 200: { description: "Version", schema: Schema.Struct({ version: Schema.String, buildDate: Schema.NullOr(Schema.String) }) } },
    },
    () => json(ctx.version),
  );

  let doc: unknown;
  table.add(
    { method: "get", path: "/api/openapi.json", operationId: "meta.openapi", summary: "This API's OpenAPI 3.1 description", tag: "meta", access: "public", responses: { 200: { description: "OpenAPI document", schema: OpenApiDocument } } },
    () => {
      doc ??= openApiDocument(table.routes, { title: "PenguinHarness server API", version: ctx.version.version });
      return json(doc);
    },
  );
}
