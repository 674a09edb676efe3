/**
 * The model table and its tools (presets, connectivity test, protocol detection, model
 * list, vision probe) as the API answers them. Keys are never sent back: `apiKey` is the mask.
 */
import { Schema } from "effect";
import { ClientType } from "./common.js";

const NullableNumber = Schema.NullOr(Schema.Number);

export const MaskedPricing = Schema.Struct({ cacheRead: NullableNumber, cacheWrite: NullableNumber, output: NullableNumber });
/** A preset's prices as the catalog of @penguin/models writes them (USD per million tokens). */
export const PresetPricing = Schema.Struct({ unit: Schema.Literal("usd_per_mtok"), cache_read: Schema.optional(Schema.Number), cache_write: Schema.optional(Schema.Number), output: Schema.optional(Schema.Number) });

/** One model entry as the server shows it (services/model-table.ts `maskedModels`). */
export const MaskedModel = Schema.Struct({
  provider: Schema.String,
  modelId: Schema.String,
  clientType: Schema.NullOr(ClientType),
  baseUrl: Schema.NullOr(Schema.String),
  /** The masked key (`••••abcd`), null without one. */
  apiKey: Schema.NullOr(Schema.String),
  hasKey: Schema.Boolean,
  contextWindow: NullableNumber,
  maxTokens: NullableNumber,
  displayName: Schema.NullOr(Schema.String),
  vision: Schema.NullOr(Schema.Boolean),
  fastMode: Schema.NullOr(Schema.Boolean),
  pricing: Schema.NullOr(MaskedPricing),
});
export const ModelRef = Schema.Struct({ provider: Schema.String, modelId: Schema.String });
export const ModelTable = Schema.Struct({ models: Schema.Array(MaskedModel), defaultModel: Schema.NullOr(ModelRef), visionModel: Schema.NullOr(ModelRef), updatedAt: NullableNumber });

export const ProviderPreset = Schema.Struct({ provider: Schema.String, displayName: Schema.String, baseUrl: Schema.String, clientType: ClientType });
export const ModelPreset = Schema.Struct({
  provider: Schema.String,
  modelId: Schema.String,
  displayName: Schema.String,
  baseUrl: Schema.String,
  clientType: ClientType,
  contextWindow: Schema.Number,
  maxTokens: Schema.Number,
  vision: Schema.Boolean,
  pricing: Schema.optional(PresetPricing),
});
export const PresetCatalog = Schema.Struct({ providers: Schema.Array(ProviderPreset), models: Schema.Array(ModelPreset), defaultModel: ModelRef });

/** How a model request ended (the protocol's stop reasons). */
const StopStatus = Schema.String;
export const ModelTestResult = Schema.Struct({
  ok: Schema.Boolean,
  status: StopStatus,
  ttftMs: Schema.optional(Schema.Number),
  tps: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  configuration: Schema.optional(Schema.Boolean),
});
export const DetectAnswer = Schema.Struct({ detected: Schema.NullOr(Schema.Struct({ clientType: ClientType, baseUrl: Schema.String, status: Schema.Number })) });
export const ModelListAnswer = Schema.Union(
  Schema.Struct({ ok: Schema.Literal(true), models: Schema.Array(Schema.Struct({ id: Schema.String })) }),
  Schema.Struct({ ok: Schema.Literal(false), status: StopStatus, error: Schema.String, httpStatus: Schema.optional(Schema.Number) }),
);
export const VisionProbe = Schema.Struct({ vision: Schema.NullOr(Schema.Boolean), answer: Schema.optional(Schema.String), status: Schema.String, error: Schema.optional(Schema.String) });

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type MaskedPricing = typeof MaskedPricing.Type;
export type PresetPricing = typeof PresetPricing.Type;
export type MaskedModel = typeof MaskedModel.Type;
export type ModelRef = typeof ModelRef.Type;
export type ModelTable = typeof ModelTable.Type;
export type ProviderPreset = typeof ProviderPreset.Type;
export type ModelPreset = typeof ModelPreset.Type;
export type PresetCatalog = typeof PresetCatalog.Type;
export type ModelTestResult = typeof ModelTestResult.Type;
export type DetectAnswer = typeof DetectAnswer.Type;
export type ModelListAnswer = typeof ModelListAnswer.Type;
export type VisionProbe = typeof VisionProbe.Type;
