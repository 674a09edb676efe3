/**
 * The HTTP contract: every JSON answer of the API as an effect/Schema schema. The route
 * table declares them as its routes' `responses` (so the OpenAPI document carries them), a
 * server test decodes real answers with them, and the web app derives its types from them
 * (`@penguin/server/contract`, imported as types: nothing here runs in the browser bundle).
 * Only `effect` and `@penguin/omnimessage` are imported below this file.
 */
import { Schema } from "effect";

export * from "./common.js";
export * from "./people.js";
export * from "./sessions.js";
export * from "./models.js";
export * from "./agents.js";
export * from "./traces.js";
export * from "./usage.js";
export * from "./files.js";

/** Project settings answers (chat defaults, command policy) and the OpenAPI document itself. */
export const ChatDefaultsAnswer = Schema.Struct({
  agentId: Schema.optional(Schema.String),
  workspace: Schema.optional(Schema.String),
  approvalMode: Schema.optional(Schema.String),
  thinkingLevel: Schema.optional(Schema.String),
});
export const OpenApiDocument = Schema.Struct({
  openapi: Schema.String, info: Schema.Struct({ title: Schema.String, version: Schema.String }), paths: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  components: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
});

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type ChatDefaultsAnswer = typeof ChatDefaultsAnswer.Type;
export type OpenApiDocument = typeof OpenApiDocument.Type;
