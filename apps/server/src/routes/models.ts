/**
 * Models resource (`/api/projects/:p/models…`): the project's model table in
 * `.project_config.toml`, read and written only through core's project-config functions.
 * Keys are never returned (services/model-table.ts masks them and decides which stored key
 * survives an edit). Any change tells the project's open sessions (`credentials_updated`)
 * and reloads them, so the next task uses the new table.
 *
 * The default and vision models are pairs from the table (owner). `presets` is the catalog
 * of @penguin/models (providers and models with their URLs, protocols, windows and prices;
 * never keys), which the web's "add from preset" form offers.
 *
 * Probes (owner only, since they use the stored keys): `test` sends one small request to an
 * entry (optionally with an edited URL or key; a stored key is never sent to a URL other
 * than its entry's), `detect` finds the wire protocol at a base URL, `list` asks an endpoint
 * for its model ids, `detect-vision` sends a tiny image and reports whether the model saw it
 * (services/vision-probe.ts).
 */
import { statSync } from "node:fs";
import { endpointOf, findModel, readProjectConfig, writeProjectConfig, type ModelEntry, type ProjectConfig } from "@penguin/core";
import { CLIENT_TYPES, DEFAULT_MODEL, detectProtocol, listModels, MODEL_PRESETS, PROVIDER_PRESETS, testModel, type ModelEndpoint } from "@penguin/models";
import { Schema } from "effect";
import { Text, Url } from "../http/schemas.js";
import { badRequest } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { maskedModels, ModelEntryInput, ModelRefInput, replaceModels } from "../services/model-table.js";
import { probeVision } from "../services/vision-probe.js";
import { DetectAnswer, ModelListAnswer, ModelTable, ModelTestResult, PresetCatalog, VisionProbe } from "../contract/index.js";

const TestBody = Schema.Struct({
  provider: Text(1),
  modelId: Text(1),
  apiKey: Schema.optional(Schema.String),
  baseUrl: Schema.optional(Url),
  clientType: Schema.optional(Schema.Literal(...CLIENT_TYPES)),
  speed: Schema.optional(Schema.Boolean),
});

export function modelRoutes(table: RouteTable, ctx: ServerContext): void {
  const tableView = (config: ProjectConfig, file: string) => ({
    models: maskedModels(config),
    defaultModel: config.default_model === undefined ? null : { provider: config.default_model.provider, modelId: config.default_model.model_id },
    visionModel: config.vision_model === undefined ? null : { provider: config.vision_model.provider, modelId: config.vision_model.model_id },
    updatedAt: mtimeOf(file),
  });
  const save = (projectId: string, file: string, config: ProjectConfig) => {
    writeProjectConfig(file, config);
    ctx.sessions.invalidateProject(projectId);
    return json(tableView(config, file));
  };

  table.add(
    { method: "get", path: "/api/projects/:p/models", operationId: "models.list", summary: "The model table (keys masked)", tag: "models", access: "project", responses: { 200: { description: "Models", schema: ModelTable } } },
    ({ grant }) => json(tableView(readProjectConfig(grant.paths.projectConfig), grant.paths.projectConfig)),
  );

  table.add(
    {
      method: "put",
      path: "/api/projects/:p/models",
      operationId: "models.replace",
      summary: "Replace the model table, keyed by (provider, modelId)",
      tag: "models",
      access: "project",
      need: "owner",
      body: Schema.Struct({ models: Schema.Array(ModelEntryInput).pipe(Schema.maxItems(500)) }),
      responses: { 200: { description: "The saved table (keys masked)", schema: ModelTable } },
    },
    ({ grant, body }) => {
      const seen = new Set<string>();
      for (const [i, m] of body.models.entries()) {
        const key = `${m.provider}\u0000${m.modelId}`;
        if (seen.has(key)) throw badRequest(`models.${i}: ${m.provider}/${m.modelId} appears twice`, `models.${i}`);
        seen.add(key);
      }
      const file = grant.paths.projectConfig;
      return save(grant.project.projectId, file, replaceModels(readProjectConfig(file), body.models));
    },
  );

  table.add(
    { method: "put", path: "/api/projects/:p/models/default", operationId: "models.setDefault", summary: "Set the default model", tag: "models", access: "project", need: "owner", body: ModelRefInput, responses: { 200: { description: "The saved table", schema: ModelTable } } },
    ({ grant, body }) => {
      const file = grant.paths.projectConfig;
      const config = readProjectConfig(file);
      if (findModel(config, { provider: body.provider, model_id: body.modelId }) === undefined) throw badRequest(`${body.provider}/${body.modelId} is not in the model table`, "modelId");
      return save(grant.project.projectId, file, { ...config, default_model: { provider: body.provider, model_id: body.modelId } });
    },
  );

  table.add(
    { method: "put", path: "/api/projects/:p/models/vision", operationId: "models.setVision", summary: "Set the vision model (describe_image uses it for models without vision)", tag: "models", access: "project", need: "owner", body: ModelRefInput, responses: { 200: { description: "The saved table", schema: ModelTable } } },
    ({ grant, body }) => {
      const file = grant.paths.projectConfig;
      const config = readProjectConfig(file);
      if (findModel(config, { provider: body.provider, model_id: body.modelId }) === undefined) throw badRequest(`${body.provider}/${body.modelId} is not in the model table`, "modelId");
      return save(grant.project.projectId, file, { ...config, vision_model: { provider: body.provider, model_id: body.modelId } });
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/models/presets", operationId: "models.presets", summary: "The preset catalog: providers and models (no keys)", tag: "models", access: "project", responses: { 200: { description: "{providers, models, defaultModel}", schema: PresetCatalog } } },
    () => json({ providers: PROVIDER_PRESETS, models: MODEL_PRESETS, defaultModel: DEFAULT_MODEL }),
  );

  table.add(
    { method: "post", path: "/api/projects/:p/models/test", operationId: "models.test", summary: "Connectivity (and speed) test of one entry", tag: "models", access: "project", need: "owner", body: TestBody, responses: { 200: { description: "{ok, status, ttftMs?, tps?, error?}", schema: ModelTestResult } } },
    async ({ grant, body }) => {
      const endpoint = probeEndpoint(grant.paths.projectConfig, body);
      const options: Parameters<typeof testModel>[1] = { speed: body.speed === true };
      if (ctx.fetch !== undefined) options.fetch = ctx.fetch;
      return json(await testModel(endpoint, options));
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/models/detect",
      operationId: "models.detect",
      summary: "Detect the wire protocol served at a base URL",
      tag: "models",
      access: "project",
      need: "owner",
      body: Schema.Struct({ baseUrl: Url, apiKey: Schema.optional(Schema.String) }),
      responses: { 200: { description: "{detected: {clientType, baseUrl, status} | null}", schema: DetectAnswer } },
    },
    async ({ body }) => {
      const options: Parameters<typeof detectProtocol>[1] = {};
      if (body.apiKey !== undefined) options.apiKey = body.apiKey;
      if (ctx.fetch !== undefined) options.fetch = ctx.fetch;
      return json({ detected: (await detectProtocol(body.baseUrl, options)) ?? null });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/models/list",
      operationId: "models.listEndpoint",
      summary: "The model ids an endpoint serves",
      tag: "models",
      access: "project",
      need: "owner",
      body: Schema.Struct({ baseUrl: Url, clientType: Schema.Literal(...CLIENT_TYPES), apiKey: Schema.optional(Schema.String) }),
      responses: { 200: { description: "{ok, models} or {ok:false, status, error}", schema: ModelListAnswer } },
    },
    async ({ body }) => {
      const endpoint = { provider: "custom", modelId: "", clientType: body.clientType, baseUrl: body.baseUrl, ...(body.apiKey === undefined ? {} : { apiKey: body.apiKey }) };
      return json(await listModels(endpoint, ctx.fetch === undefined ? {} : { fetch: ctx.fetch }));
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/models/detect-vision",
      operationId: "models.detectVision",
      summary: "Send a tiny image and report whether the model saw it",
      tag: "models",
      access: "project",
      need: "owner",
      body: TestBody.omit("speed"),
      responses: { 200: { description: "{vision: true|false|null, answer?, status, error?}", schema: VisionProbe } },
    },
    async ({ grant, body, c }) => json(await probeVision(probeEndpoint(grant.paths.projectConfig, body), { signal: c.signal, ...(ctx.fetch === undefined ? {} : { fetch: ctx.fetch }) })),
  );

  /** The endpoint a probe talks to: the stored entry with the form's edits (a moved URL drops the stored key). */
  function probeEndpoint(configFile: string, body: { provider: string; modelId: string; apiKey?: string | undefined; baseUrl?: string | undefined; clientType?: ModelEntry["client_type"] | undefined }): ModelEndpoint {
    const stored = findModel(readProjectConfig(configFile), { provider: body.provider, model_id: body.modelId });
    const entry: ModelEntry = { ...(stored ?? { provider: body.provider, model_id: body.modelId }) };
    if (body.clientType !== undefined) entry.client_type = body.clientType;
    if (body.baseUrl !== undefined && body.baseUrl !== entry.base_url) {
      entry.base_url = body.baseUrl;
      delete entry.api_key;
    }
    if (body.apiKey !== undefined) entry.api_key = body.apiKey;
    return endpointOf(entry, { env: ctx.env, configFile });
  }
}

function mtimeOf(file: string): number | null {
  try {
    return Math.floor(statSync(file).mtimeMs);
  } catch {
    return null;
  }
}
