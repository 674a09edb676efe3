/**
 * From a model reference to a ready-to-call endpoint.
 *
 * The reference is the explicit (provider, model_id) pair, given whole or not at all:
 * half a pair is an error, no pair means the project's `default_model`, and a pair that is
 * not in the project's `[[models]]` table is an error that says how to add it. Nothing is
 * inferred from a model name.
 *
 * Missing entry fields fall back to the preset catalog entry of the same pair (base URL,
 * client type, context window, prices). The API key is the entry's own, else the provider's
 * environment variable, and only when the entry's base URL is that provider's own (see
 * `@penguin/models` credentials): a key is never sent to another entry's endpoint.
 */
import { envBaseUrl, findModelPreset, findProviderPreset, resolveApiKey, type ModelEndpoint } from "@penguin/models";
import { PenguinError } from "../errors.js";
import type { ModelEntry, ProjectConfig } from "./project-config.js";
import { findModel } from "./project-config.js";

export interface ModelRefInput {
  provider?: string | undefined;
  modelId?: string | undefined;
}

export interface ResolveContext {
  env: NodeJS.ProcessEnv;
  /** For messages: where the user fixes it. */
  configFile: string;
}

const ADD_HINT = "penguin config model add --provider <provider> --model-id <model> --client-type <openai-chat|openai-responses|anthropic-messages|gemini> --base-url <url> --api-key <key> --set-default";

/** The entry the reference points at, or a PenguinError saying what to do. */
export function resolveModelEntry(config: ProjectConfig, ref: ModelRefInput, ctx: ResolveContext): ModelEntry {
  const hasProvider = ref.provider !== undefined && ref.provider !== "";
  const hasModel = ref.modelId !== undefined && ref.modelId !== "";
  if (hasProvider !== hasModel) {
    throw new PenguinError(
      "half_model_pair",
      `a model is the pair (provider, model_id): give both --provider and --model-id, or neither to use the default model (got only ${hasProvider ? "provider" : "model id"})`,
    );
  }
  if (hasProvider && hasModel) {
    const entry = findModel(config, { provider: ref.provider!, model_id: ref.modelId! });
    if (entry === undefined) {
      const known = config.models.map((m) => `${m.provider}/${m.model_id}`).join(", ") || "none";
      throw new PenguinError(
        "unknown_model",
        `model ${ref.provider}/${ref.modelId} is not configured in ${ctx.configFile} (configured: ${known}). Add it with: penguin config model add --provider ${ref.provider} --model-id ${ref.modelId} --base-url <url> --api-key <key>`,
      );
    }
    return entry;
  }
  if (config.default_model === undefined && config.models.length > 0) {
    const known = config.models.map((m) => `${m.provider}/${m.model_id}`).join(", ");
    const first = config.models[0]!;
    throw new PenguinError(
      "model_not_configured",
      `no default model is set in ${ctx.configFile} (configured: ${known}). Pick one with: penguin config model default --provider ${first.provider} --model-id ${first.model_id} (or name one for this call with --provider and --model-id)`,
    );
  }
  if (config.default_model === undefined) {
    throw new PenguinError("model_not_configured", `no model is configured in ${ctx.configFile}. Add one with: ${ADD_HINT}`);
  }
  const entry = findModel(config, config.default_model);
  if (entry === undefined) {
    const d = config.default_model;
    throw new PenguinError(
      "unknown_model",
      `the default model ${d.provider}/${d.model_id} has no [[models]] entry in ${ctx.configFile}. Add it with: penguin config model add --provider ${d.provider} --model-id ${d.model_id} --base-url <url> --api-key <key>`,
    );
  }
  return entry;
}

/** The entry merged with its preset and credentials, as the gateway wants it. */
export function endpointOf(entry: ModelEntry, ctx: ResolveContext): ModelEndpoint {
  const preset = findModelPreset(entry.provider, entry.model_id);
  const providerPreset = findProviderPreset(entry.provider);
  const baseUrl = entry.base_url ?? envBaseUrl(entry.provider, ctx.env) ?? preset?.baseUrl ?? providerPreset?.baseUrl;
  if (baseUrl === undefined) {
    throw new PenguinError(
      "invalid_argument",
      `model ${entry.provider}/${entry.model_id} in ${ctx.configFile} has no base_url and no preset to take one from; set it with: penguin config model add --provider ${entry.provider} --model-id ${entry.model_id} --base-url <url>`,
    );
  }
  const endpoint: ModelEndpoint = {
    provider: entry.provider,
    modelId: entry.model_id,
    clientType: entry.client_type ?? preset?.clientType ?? providerPreset?.clientType ?? "openai-chat",
    baseUrl,
  };
  const apiKey = entry.keyless === true ? undefined : resolveApiKey({ provider: entry.provider, baseUrl, apiKey: entry.api_key }, ctx.env);
  if (apiKey !== undefined) endpoint.apiKey = apiKey;
  const window = entry.context_window !== undefined && entry.context_window >= 4096 ? entry.context_window : preset?.contextWindow;
  if (window !== undefined) endpoint.contextWindow = window;
  const maxTokens = entry.max_tokens ?? preset?.maxTokens;
  if (maxTokens !== undefined) endpoint.maxTokens = maxTokens;
  const vision = entry.vision ?? preset?.vision;
  if (vision !== undefined) endpoint.vision = vision;
  if (entry.fast_mode !== undefined) endpoint.fastMode = entry.fast_mode;
  const pricing = entry.pricing ?? preset?.pricing;
  if (pricing !== undefined) endpoint.pricing = pricing;
  return endpoint;
}

export function resolveModelEndpoint(config: ProjectConfig, ref: ModelRefInput, ctx: ResolveContext): ModelEndpoint {
  return endpointOf(resolveModelEntry(config, ref, ctx), ctx);
}
