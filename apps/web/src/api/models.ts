/**
 * The project's model table (SPEC §9 `P/models…`): read (keys masked), full-table replace,
 * default and vision model, the preset catalog (from the server, the one copy of it), and
 * the probes: connection/speed test, protocol detection, endpoint model list, vision. The table is replaced as a whole, so the editor always sends every entry; an entry's
 * key is only included when the user typed a new one (the server keeps the stored key).
 */
import { get, post, put } from "./http";
import { projectPath } from "./projects";
import { arr, asRecord, bool, isRecord, num, oneOf, str } from "./read";
import { CLIENT_TYPES, type DetectResult, type ModelEntry, type ModelEntryInput, type ModelPreset, type ModelRef, type ModelTable, type ModelTestResult, type PresetCatalog, type Pricing, type ProviderPreset, type VisionProbe } from "./types";

function refOf(v: unknown): ModelRef | null {
  if (!isRecord(v)) return null;
  const provider = str(v, "provider");
  const modelId = str(v, "modelId");
  return provider === undefined || modelId === undefined ? null : { provider, modelId };
}

function pricingOf(v: unknown): Pricing | undefined {
  if (!isRecord(v)) return undefined;
  const p: Pricing = {};
  const cacheRead = num(v, "cacheRead", "cache_read");
  const cacheWrite = num(v, "cacheWrite", "cache_write");
  const output = num(v, "output");
  if (cacheRead !== undefined) p.cacheRead = cacheRead;
  if (cacheWrite !== undefined) p.cacheWrite = cacheWrite;
  if (output !== undefined) p.output = output;
  return p;
}

export function modelEntryOf(raw: unknown): ModelEntry | undefined {
  const o = asRecord(raw);
  const provider = str(o, "provider");
  const modelId = str(o, "modelId");
  if (provider === undefined || modelId === undefined) return undefined;
  const e: ModelEntry = { provider, modelId, hasKey: bool(o, "hasKey") ?? false };
  const clientType = oneOf(o.clientType, CLIENT_TYPES);
  const baseUrl = str(o, "baseUrl");
  const mask = str(o, "apiKey");
  const contextWindow = num(o, "contextWindow");
  const maxTokens = num(o, "maxTokens");
  const displayName = str(o, "displayName");
  const vision = bool(o, "vision");
  const fastMode = bool(o, "fastMode");
  const pricing = pricingOf(o.pricing);
  if (clientType !== undefined) e.clientType = clientType;
  if (baseUrl !== undefined) e.baseUrl = baseUrl;
  if (mask !== undefined) e.apiKeyMask = mask;
  if (contextWindow !== undefined) e.contextWindow = contextWindow;
  if (maxTokens !== undefined) e.maxTokens = maxTokens;
  if (displayName !== undefined && displayName !== "") e.displayName = displayName;
  if (vision !== undefined) e.vision = vision;
  if (fastMode !== undefined) e.fastMode = fastMode;
  if (pricing !== undefined) e.pricing = pricing;
  return e;
}

function tableOf(raw: unknown): ModelTable {
  const o = asRecord(raw);
  return {
    models: arr(o, "models").flatMap((m) => modelEntryOf(m) ?? []),
    defaultModel: refOf(o.defaultModel),
    visionModel: refOf(o.visionModel),
    updatedAt: num(o, "updatedAt") ?? null,
  };
}

const modelsPath = (p: string) => `${projectPath(p)}/models`;

export async function getModels(projectId: string): Promise<ModelTable> {
  return tableOf(await get(modelsPath(projectId)));
}

/** The input that keeps an entry as it is (its stored key included). */
export function inputOf(e: ModelEntry): ModelEntryInput {
  const i: ModelEntryInput = { provider: e.provider, modelId: e.modelId };
  if (e.clientType !== undefined) i.clientType = e.clientType;
  if (e.baseUrl !== undefined) i.baseUrl = e.baseUrl;
  if (e.contextWindow !== undefined) i.contextWindow = e.contextWindow;
  if (e.maxTokens !== undefined) i.maxTokens = e.maxTokens;
  if (e.displayName !== undefined) i.displayName = e.displayName;
  if (e.vision !== undefined) i.vision = e.vision;
  if (e.fastMode !== undefined) i.fastMode = e.fastMode;
  if (e.pricing !== undefined) i.pricing = e.pricing;
  return i;
}

export async function putModels(projectId: string, models: ModelEntryInput[]): Promise<ModelTable> {
  return tableOf(await put(modelsPath(projectId), { models }));
}

export async function setDefaultModel(projectId: string, ref: ModelRef): Promise<ModelTable> {
  return tableOf(await put(`${modelsPath(projectId)}/default`, ref));
}

export async function setVisionModel(projectId: string, ref: ModelRef): Promise<ModelTable> {
  return tableOf(await put(`${modelsPath(projectId)}/vision`, ref));
}

/** The catalog of @penguin/models as the server serves it: providers and models, no keys. */
export async function getPresets(projectId: string): Promise<PresetCatalog> {
  const o = asRecord(await get(`${modelsPath(projectId)}/presets`));
  const providers = arr(o, "providers").flatMap((raw): ProviderPreset[] => {
    const r = asRecord(raw);
    const provider = str(r, "provider");
    const baseUrl = str(r, "baseUrl");
    const clientType = oneOf(r.clientType, CLIENT_TYPES);
    return provider === undefined || baseUrl === undefined || clientType === undefined ? [] : [{ provider, displayName: str(r, "displayName") ?? provider, baseUrl, clientType }];
  });
  const models = arr(o, "models").flatMap((raw): ModelPreset[] => {
    const r = asRecord(raw);
    const provider = str(r, "provider");
    const modelId = str(r, "modelId");
    const baseUrl = str(r, "baseUrl");
    const clientType = oneOf(r.clientType, CLIENT_TYPES);
    if (provider === undefined || modelId === undefined || baseUrl === undefined || clientType === undefined) return [];
    const m: ModelPreset = { provider, modelId, displayName: str(r, "displayName") ?? modelId, baseUrl, clientType };
    const contextWindow = num(r, "contextWindow");
    const maxTokens = num(r, "maxTokens");
    const vision = bool(r, "vision");
    const pricing = pricingOf(r.pricing);
    if (contextWindow !== undefined) m.contextWindow = contextWindow;
    if (maxTokens !== undefined) m.maxTokens = maxTokens;
    if (vision !== undefined) m.vision = vision;
    if (pricing !== undefined) m.pricing = pricing;
    return [m];
  });
  return { providers, models };
}

export interface TestInput {
  provider: string;
  modelId: string;
  apiKey?: string;
  baseUrl?: string;
  clientType?: ModelEntry["clientType"];
  speed?: boolean;
}

export async function testModel(projectId: string, input: TestInput): Promise<ModelTestResult> {
  const o = asRecord(await post(`${modelsPath(projectId)}/test`, input));
  const r: ModelTestResult = { ok: bool(o, "ok") ?? false };
  const status = str(o, "status");
  const ttftMs = num(o, "ttftMs");
  const tps = num(o, "tps");
  const error = str(o, "error");
  if (status !== undefined) r.status = status;
  if (ttftMs !== undefined) r.ttftMs = ttftMs;
  if (tps !== undefined) r.tps = tps;
  if (error !== undefined) r.error = error;
  return r;
}

/** Sends a tiny image through the entry (with the form's edits) and reports whether the model saw it. */
export async function detectVision(projectId: string, input: Omit<TestInput, "speed">): Promise<VisionProbe> {
  const o = asRecord(await post(`${modelsPath(projectId)}/detect-vision`, input));
  const v = o.vision;
  const r: VisionProbe = { vision: typeof v === "boolean" ? v : null, status: str(o, "status") ?? "" };
  const answer = str(o, "answer");
  const error = str(o, "error");
  if (answer !== undefined) r.answer = answer;
  if (error !== undefined) r.error = error;
  return r;
}

export async function detectProtocol(projectId: string, baseUrl: string, apiKey?: string): Promise<DetectResult | undefined> {
  const body = apiKey === undefined || apiKey === "" ? { baseUrl } : { baseUrl, apiKey };
  const o = asRecord(await post(`${modelsPath(projectId)}/detect`, body));
  const d = asRecord(o.detected);
  const clientType = oneOf(d.clientType, CLIENT_TYPES);
  const url = str(d, "baseUrl");
  return clientType === undefined || url === undefined ? undefined : { clientType, baseUrl: url };
}

export async function listEndpointModels(projectId: string, baseUrl: string, clientType: NonNullable<ModelEntry["clientType"]>, apiKey?: string): Promise<{ ok: boolean; models: string[]; error?: string }> {
  const body = apiKey === undefined || apiKey === "" ? { baseUrl, clientType } : { baseUrl, clientType, apiKey };
  const o = asRecord(await post(`${modelsPath(projectId)}/list`, body));
  const models = arr(o, "models").flatMap((m) => (typeof m === "string" ? [m] : (str(asRecord(m), "id", "modelId") ?? [])));
  const error = str(o, "error");
  return error === undefined ? { ok: bool(o, "ok") ?? models.length > 0, models } : { ok: bool(o, "ok") ?? false, models, error };
}

/** The model entry that prices a session's tokens, if the table has it. */
export function findEntry(table: ModelTable | undefined, provider: string | null | undefined, modelId: string | null | undefined): ModelEntry | undefined {
  if (table === undefined || provider == null || modelId == null) return undefined;
  return table.models.find((m) => m.provider === provider && m.modelId === modelId);
}
