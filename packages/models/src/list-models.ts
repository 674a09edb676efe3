/**
 * The models an endpoint serves: `GET <base>/models` (OpenAI-style, chat and responses),
 * `GET <base>/v1/models` (Anthropic, paged with `after_id`), `GET <base>/models` (Gemini,
 * paged with `pageToken`, names without their `models/` prefix, token limits when given).
 *
 * Failures come back as values classified like model requests (auth, failed, timeout…), with
 * a message that names the provider and never the key. At most ten pages are read. The key
 * is the endpoint's own (resolve the env fallback with `resolveApiKey` first).
 */
import type { StopReason } from "@penguin/omnimessage";
import { outcomeOf, parseRetryAfter, providerErrorOf, type Who } from "./errors.js";
import { globalTimers, send, type FetchFn } from "./http.js";
import { arrayAt, numberAt, parseJson, stringAt } from "./json.js";
import { ANTHROPIC_VERSION } from "./protocols/anthropic-messages.js";
import { proxyFetch } from "./proxy.js";
import type { ModelEndpoint, Timers } from "./types.js";
import { joinUrl } from "./url.js";

export interface ListedModel {
  id: string;
  displayName?: string;
  contextWindow?: number;
  maxTokens?: number;
}

export type ListModelsResult =
  | { ok: true; models: ListedModel[] }
  | { ok: false; status: StopReason; error: string; httpStatus?: number };

export interface ListModelsOptions {
  fetch?: FetchFn;
  timeoutMs?: number;
  timers?: Timers;
  signal?: AbortSignal;
  now?: () => number;
}

const MAX_PAGES = 10;

type Page = { models: ListedModel[]; next: string | undefined };

function pageUrl(e: ModelEndpoint, cursor: string | undefined): string {
  switch (e.clientType) {
    case "openai-chat":
    case "openai-responses":
      return joinUrl(e.baseUrl, "/models");
    case "anthropic-messages":
      return `${joinUrl(e.baseUrl, "/v1/models")}?limit=1000${cursor === undefined ? "" : `&after_id=${encodeURIComponent(cursor)}`}`;
    case "gemini":
      return `${joinUrl(e.baseUrl, "/models")}?pageSize=1000${cursor === undefined ? "" : `&pageToken=${encodeURIComponent(cursor)}`}`;
  }
}

function headersFor(e: ModelEndpoint, apiKey: string | undefined): Record<string, string> {
  const h: Record<string, string> = { accept: "application/json", ...(e.headers ?? {}) };
  switch (e.clientType) {
    case "openai-chat":
    case "openai-responses":
      if (apiKey !== undefined) h.authorization = `Bearer ${apiKey}`;
      break;
    case "anthropic-messages":
      h["anthropic-version"] = ANTHROPIC_VERSION; // also what tells a shared `/v1/models` route who asks
      if (apiKey !== undefined) h["x-api-key"] = apiKey;
      break;
    case "gemini":
      if (apiKey !== undefined) h["x-goog-api-key"] = apiKey;
      break;
  }
  return h;
}

function readPage(e: ModelEndpoint, body: unknown): Page {
  switch (e.clientType) {
    case "openai-chat":
    case "openai-responses":
      return {
        models: arrayAt(body, "data").flatMap((m) => {
          const id = stringAt(m, "id");
          return id === undefined ? [] : [{ id }];
        }),
        next: undefined,
      };
    case "anthropic-messages": {
      const models = arrayAt(body, "data").flatMap((m) => {
        const id = stringAt(m, "id");
        if (id === undefined) return [];
        const out: ListedModel = { id };
        const name = stringAt(m, "display_name");
        if (name !== undefined) out.displayName = name;
        return [out];
      });
      const more = typeof body === "object" && body !== null && "has_more" in body && body.has_more === true;
      return { models, next: more ? stringAt(body, "last_id") : undefined };
    }
    case "gemini": {
      const models = arrayAt(body, "models").flatMap((m) => {
        const name = stringAt(m, "name");
        if (name === undefined) return [];
        const out: ListedModel = { id: name.replace(/^models\//, "") };
        const display = stringAt(m, "displayName");
        if (display !== undefined) out.displayName = display;
        const input = numberAt(m, "inputTokenLimit");
        if (input !== undefined) out.contextWindow = input;
        const output = numberAt(m, "outputTokenLimit");
        if (output !== undefined) out.maxTokens = output;
        return [out];
      });
      return { models, next: stringAt(body, "nextPageToken") };
    }
  }
}

export async function listModels(endpoint: ModelEndpoint, opts: ListModelsOptions = {}): Promise<ListModelsResult> {
  const apiKey = endpoint.apiKey;
  const who: Who = { provider: endpoint.provider, modelId: "(model list)", baseUrl: endpoint.baseUrl };
  if (apiKey !== undefined) who.apiKey = apiKey;
  const models: ListedModel[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const sent = await send(
      { url: pageUrl(endpoint, cursor), headers: headersFor(endpoint, apiKey) },
      {
        fetch: opts.fetch ?? proxyFetch(),
        timeoutMs: opts.timeoutMs ?? 30000,
        timers: opts.timers ?? globalTimers,
        signal: opts.signal,
        method: "GET",
      },
    );
    if (!sent.ok) {
      const o = outcomeOf(sent.failure, who);
      return { ok: false, status: o.status, error: o.errorMessage ?? o.status };
    }
    const res = sent.response;
    const text = await res.text(8 * 1024 * 1024);
    res.close();
    if (res.status < 200 || res.status >= 300) {
      const failure = { kind: "http" as const, status: res.status, error: providerErrorOf(text) };
      const retryAfterMs = parseRetryAfter(res.headers, opts.now ?? Date.now);
      const o = outcomeOf(retryAfterMs === undefined ? failure : { ...failure, retryAfterMs }, who);
      return { ok: false, status: o.status, error: o.errorMessage ?? o.status, httpStatus: res.status };
    }
    const parsed = parseJson(text);
    if (!parsed.ok) {
      const o = outcomeOf({ kind: "malformed", detail: "the model list is not JSON" }, who);
      return { ok: false, status: o.status, error: o.errorMessage ?? o.status, httpStatus: res.status };
    }
    const { models: pageModels, next } = readPage(endpoint, parsed.value);
    models.push(...pageModels);
    if (next === undefined || next === "") break;
    cursor = next;
  }
  return { ok: true, models };
}
