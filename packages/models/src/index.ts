// @penguin/models: the model gateway. Four wire protocols over node:http(s) (fetch when a proxy or a test supplies one), no vendor SDKs.
// The contract is in types.ts; `streamModel` (gateway.ts) is the entry point; the catalog,
// credentials, detection, model listing, speed test and proxy helpers are for the SDK and server.
export * from "./types.js";
export { streamModel, buildWireRequest, adapterFor, apiKeyFor, DEFAULT_TIMEOUT_MS } from "./gateway.js";
export { createSseParser, type SseEvent, type SseParser, type SseEnd } from "./sse.js";
export {
  baseUrlProblem,
  outcomeOf,
  parseRetryAfter,
  providerErrorOf,
  classOfHttp,
  outcomeOfClass,
  scrub,
  type ErrorClass,
  type Failure,
  type ProviderError,
} from "./errors.js";
export { usageFromAnthropic, usageFromChat, usageFromGemini, usageFromResponses, tokenCounts } from "./usage.js";
export { anthropicBudget, chatThinking, geminiThinking, responsesReasoning } from "./thinking.js";
export { outputCap, estimateTokens, effectiveWindow, DEFAULT_CONTEXT_WINDOW } from "./output-cap.js";
export { fastModeFor, type FastMode } from "./fast-mode.js";
export {
  DEFAULT_MODEL,
  MODEL_PRESETS,
  PROVIDER_PRESETS,
  findModelPreset,
  findProviderPreset,
  presetEndpoint,
  type ModelPreset,
  type ProviderPreset,
} from "./catalog.js";
export { KEY_FAMILIES, envApiKey, envBaseUrl, keyFamilyOf, resolveApiKey, type Env, type KeyFamily } from "./credentials.js";
export { detectProtocol, type DetectOptions, type DetectResult } from "./detect.js";
export { listModels, type ListModelsOptions, type ListModelsResult, type ListedModel } from "./list-models.js";
export { testModel, type TestModelOptions, type TestModelResult } from "./speed-test.js";
export { bypassesProxy, defaultFetch, proxiedFetch, proxyFetch, proxySettings, type ProxySettings } from "./proxy.js";
export { globalTimers, type FetchFn, type WireBody, type WireRequest } from "./http.js";
export { setWireCacheBypass, wireCacheCounters } from "./wire-cache.js";
export { costUsd } from "./cost.js";
