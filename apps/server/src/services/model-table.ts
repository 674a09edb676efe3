/**
 * The project's model table as the API shows and edits it: `.project_config.toml` through
 * core's project-config functions, with API keys never leaving the server.
 *
 * - Reading masks every key (`••••` plus its last four characters when it is long enough to
 *   spare them) and says whether one is set.
 * - Writing replaces the whole table, keyed by the (provider, modelId) pair. For each entry,
 *   `apiKey` omitted (or equal to the mask the client was shown) keeps the stored key, `null`
 *   or `""` removes it, any other string sets it. A kept key stays only if the entry's base
 *   URL did not change: a key is only ever sent to its own entry's endpoint, so moving an
 *   entry to another URL requires typing the key again.
 */
import { findModel, firstAddedDefault, type ModelEntry, type ProjectConfig } from "@penguin/core";
import { CLIENT_TYPES } from "@penguin/models";
import { Schema } from "effect";
import { Url } from "../http/schemas.js";

export function maskKey(key: string | undefined): string | null {
  if (key === undefined || key === "") return null;
  return key.length >= 12 ? `••••${key.slice(-4)}` : "••••";
}

/** Null and absent both mean "not set", so a listed entry can be sent back as it came. */
const unset = <S extends Schema.Schema.AnyNoContext>(schema: S) => Schema.optionalWith(schema, { nullable: true });

const Price = Schema.Number.pipe(Schema.nonNegative());
const Count = Schema.Number.pipe(Schema.int(), Schema.positive());
const Name = Schema.String.pipe(Schema.minLength(1));

const PricingSchema = Schema.Struct({
  cacheRead: unset(Price),
  cacheWrite: unset(Price),
  output: unset(Price),
});

export const ModelEntryInput = Schema.Struct({
  provider: Name,
  modelId: Name,
  clientType: unset(Schema.Literal(...CLIENT_TYPES)),
  baseUrl: unset(Url),
  apiKey: Schema.optional(Schema.NullOr(Schema.String)),
  contextWindow: unset(Count),
  maxTokens: unset(Count),
  displayName: unset(Schema.String),
  vision: unset(Schema.Boolean),
  fastMode: unset(Schema.Boolean),
  pricing: unset(PricingSchema),
});

export type ModelEntryInput = typeof ModelEntryInput.Type;

export const ModelRefInput = Schema.Struct({ provider: Name, modelId: Name });

export interface MaskedModel {
  provider: string;
  modelId: string;
  clientType: string | null;
  baseUrl: string | null;
  apiKey: string | null;
  hasKey: boolean;
  contextWindow: number | null;
  maxTokens: number | null;
  displayName: string | null;
  vision: boolean | null;
  fastMode: boolean | null;
  pricing: { cacheRead: number | null; cacheWrite: number | null; output: number | null } | null;
}

export function maskedModels(config: ProjectConfig): MaskedModel[] {
  return config.models.map((m) => ({
    provider: m.provider,
    modelId: m.model_id,
    clientType: m.client_type ?? null,
    baseUrl: m.base_url ?? null,
    apiKey: maskKey(m.api_key),
    hasKey: m.api_key !== undefined && m.api_key !== "",
    contextWindow: m.context_window ?? null,
    maxTokens: m.max_tokens ?? null,
    displayName: m.display_name ?? null,
    vision: m.vision ?? null,
    fastMode: m.fast_mode ?? null,
    pricing: m.pricing === undefined ? null : { cacheRead: m.pricing.cache_read ?? null, cacheWrite: m.pricing.cache_write ?? null, output: m.pricing.output ?? null },
  }));
}

/**
 * The config with its model table replaced; defaults pointing at removed pairs are cleared, and a
 * table without a default takes the first model added as its default (core's firstAddedDefault,
 * the CLI's rule too).
 */
export function replaceModels(config: ProjectConfig, inputs: readonly ModelEntryInput[]): ProjectConfig {
  const models = inputs.map((input) => entryOf(input, findModel(config, { provider: input.provider, model_id: input.modelId })));
  const next: ProjectConfig = { ...config, models };
  const has = (ref: { provider: string; model_id: string } | undefined) => ref !== undefined && findModel(next, ref) !== undefined;
  if (!has(next.default_model)) delete next.default_model;
  if (!has(next.vision_model)) delete next.vision_model;
  const adopted = firstAddedDefault(config, next);
  if (adopted !== undefined) next.default_model = adopted;
  return next;
}

function entryOf(input: ModelEntryInput, existing: ModelEntry | undefined): ModelEntry {
  const entry: ModelEntry = { provider: input.provider, model_id: input.modelId };
  if (input.clientType !== undefined) entry.client_type = input.clientType;
  if (input.baseUrl !== undefined) entry.base_url = input.baseUrl;
  if (input.contextWindow !== undefined) entry.context_window = input.contextWindow;
  if (input.maxTokens !== undefined) entry.max_tokens = input.maxTokens;
  if (input.displayName !== undefined) entry.display_name = input.displayName;
  if (input.vision !== undefined) entry.vision = input.vision;
  if (input.fastMode !== undefined) entry.fast_mode = input.fastMode;
  if (input.pricing !== undefined) {
    entry.pricing = { unit: "usd_per_mtok" };
    if (input.pricing.cacheRead !== undefined) entry.pricing.cache_read = input.pricing.cacheRead;
    if (input.pricing.cacheWrite !== undefined) entry.pricing.cache_write = input.pricing.cacheWrite;
    if (input.pricing.output !== undefined) entry.pricing.output = input.pricing.output;
  }
  const key = keyFor(input, existing);
  if (key !== undefined) entry.api_key = key;
  return entry;
}

function keyFor(input: ModelEntryInput, existing: ModelEntry | undefined): string | undefined {
  if (input.apiKey === null || input.apiKey === "") return undefined;
  const keep = input.apiKey === undefined || input.apiKey === maskKey(existing?.api_key);
  if (!keep) return input.apiKey;
  if (existing?.api_key === undefined || existing.base_url !== input.baseUrl) return undefined;
  return existing.api_key;
}
