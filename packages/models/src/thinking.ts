/**
 * Thinking levels (`none|low|medium|high|xhigh|max`) mapped onto each wire protocol.
 *
 * An undefined level means "no opinion": nothing is sent and the provider's default applies.
 *
 * | level  | openai-chat (OpenAI / DeepSeek / other)   | openai-responses | anthropic budget_tokens | gemini-3 pro / flash  | gemini other budget |
 * | ------ | ----------------------------------------- | ---------------- | ----------------------- | --------------------- | ------------------- |
 * | none   | "none" / thinking disabled / not sent     | "none"           | thinking off            | "low" / "minimal"     | 0 (128 on pro)      |
 * | low    | "low" / "low" / "low"                     | "low"            | 2048                    | "low" / "low"         | 1024                |
 * | medium | "medium" / "high" / "medium"              | "medium"         | 8192                    | "high" / "medium"     | 8192                |
 * | high   | "high" / "high" / "high"                  | "high"           | 16384                   | "high" / "high"       | 16384               |
 * | xhigh  | "xhigh" / "high" / "high"                 | "xhigh"          | 32768                   | "high" / "high"       | 24576               |
 * | max    | "xhigh" / "max" / "high"                  | "xhigh"          | 63999                   | "high" / "high"       | 32768 (24576 flash) |
 *
 * - openai-chat sends `reasoning_effort`. DeepSeek takes low/high/max (its API folds medium and
 *   xhigh into high) and turns thinking off with `thinking: {type: "disabled"}`; Z.AI does the
 *   same with `thinking`, Qwen (DashScope) with `enable_thinking: false`. Other compatible
 *   servers only get the three classic values, since unknown ones are often rejected.
 * - openai-responses sends `reasoning: {effort, summary: "auto"}` so summaries stream as thinking.
 * - anthropic sends `thinking: {type: "enabled", budget_tokens}`; the request builder keeps the
 *   budget below `max_tokens` (and turns thinking off when that leaves under 1024 tokens).
 * - gemini sends `thinkingConfig` with `includeThoughts: true`: `thinkingLevel` on Gemini 3,
 *   `thinkingBudget` on earlier models (Gemma gets no budget).
 */
import type { ModelEndpoint, ThinkingLevel } from "./types.js";
import { hostOf } from "./url.js";

export type ChatThinkingFields = {
  reasoning_effort?: string;
  thinking?: { type: "enabled" | "disabled" };
  enable_thinking?: boolean;
};

type ChatFlavour = "openai" | "deepseek" | "zai" | "qwen" | "generic";

function chatFlavour(endpoint: ModelEndpoint): ChatFlavour {
  const host = hostOf(endpoint.baseUrl);
  const id = endpoint.modelId.toLowerCase();
  if (endpoint.provider === "deepseek" || host === "api.deepseek.com" || id.startsWith("deepseek")) return "deepseek";
  if (endpoint.provider === "openai" || host === "api.openai.com") return "openai";
  if (endpoint.provider === "zai" || host === "api.z.ai" || host === "open.bigmodel.cn") return "zai";
  if (endpoint.provider === "qwen" || host.startsWith("dashscope")) return "qwen";
  return "generic";
}

export function chatThinking(level: ThinkingLevel | undefined, endpoint: ModelEndpoint): ChatThinkingFields {
  if (level === undefined) return {};
  const flavour = chatFlavour(endpoint);
  switch (flavour) {
    case "deepseek":
      return deepseekThinking(level);
    case "zai":
      return { thinking: { type: level === "none" ? "disabled" : "enabled" } };
    case "qwen":
      return { enable_thinking: level !== "none" };
    case "openai":
      return { reasoning_effort: level === "max" ? "xhigh" : level };
    case "generic":
      return genericThinking(level);
  }
}

function deepseekThinking(level: ThinkingLevel): ChatThinkingFields {
  switch (level) {
    case "none":
      return { thinking: { type: "disabled" } };
    case "low":
      return { reasoning_effort: "low" };
    case "medium":
    case "high":
    case "xhigh":
      return { reasoning_effort: "high" };
    case "max":
      return { reasoning_effort: "max" };
  }
}

function genericThinking(level: ThinkingLevel): ChatThinkingFields {
  switch (level) {
    case "none":
      return {};
    case "low":
    case "medium":
    case "high":
      return { reasoning_effort: level };
    case "xhigh":
    case "max":
      return { reasoning_effort: "high" };
  }
}

export function responsesReasoning(level: ThinkingLevel | undefined): { effort: string; summary?: "auto" } | undefined {
  if (level === undefined) return undefined;
  if (level === "none") return { effort: "none" };
  return { effort: level === "max" ? "xhigh" : level, summary: "auto" };
}

/** The Anthropic thinking budget for a level, before the `max_tokens` clamp; undefined = off. */
export function anthropicBudget(level: ThinkingLevel | undefined): number | undefined {
  switch (level) {
    case undefined:
    case "none":
      return undefined;
    case "low":
      return 2048;
    case "medium":
      return 8192;
    case "high":
      return 16384;
    case "xhigh":
      return 32768;
    case "max":
      return 63999;
  }
}

export type GeminiThinkingConfig = { includeThoughts: boolean; thinkingLevel?: string; thinkingBudget?: number };

export function geminiThinking(level: ThinkingLevel | undefined, modelId: string): GeminiThinkingConfig {
  const id = modelId.toLowerCase();
  if (level === undefined) return { includeThoughts: true };
  if (id.includes("gemma")) return { includeThoughts: level !== "none" };
  const flash = id.includes("flash");
  if (id.includes("gemini-3")) {
    if (level === "none") return { includeThoughts: false, thinkingLevel: flash ? "minimal" : "low" };
    if (level === "low") return { includeThoughts: true, thinkingLevel: "low" };
    if (level === "medium") return { includeThoughts: true, thinkingLevel: flash ? "medium" : "high" };
    return { includeThoughts: true, thinkingLevel: "high" };
  }
  switch (level) {
    case "none":
      return { includeThoughts: false, thinkingBudget: id.includes("pro") ? 128 : 0 };
    case "low":
      return { includeThoughts: true, thinkingBudget: 1024 };
    case "medium":
      return { includeThoughts: true, thinkingBudget: 8192 };
    case "high":
      return { includeThoughts: true, thinkingBudget: 16384 };
    case "xhigh":
      return { includeThoughts: true, thinkingBudget: 24576 };
    case "max":
      return { includeThoughts: true, thinkingBudget: flash ? 24576 : 32768 };
  }
}
