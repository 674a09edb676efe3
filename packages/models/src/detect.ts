/**
 * Protocol detection for a custom base URL: POST `{}` to `<base>/responses`,
 * `<base>/v1/messages` and `<base>/chat/completions`, in that order; the first reply shaped like
 * that protocol wins.
 *
 * An empty body is always rejected, and the rejection tells us who answered: a JSON error in the
 * protocol's own shape counts (including 401/403, the route exists), while 404/405, HTML pages
 * and JSON of another shape do not. Anthropic's root has no `/v1` (we append it), so a base URL
 * typed with a trailing `/v1` is also tried without it for the Messages probe. Each probe uses
 * that protocol's auth header. The returned `baseUrl` is the protocol root to store.
 */
import { globalTimers, send, type FetchFn } from "./http.js";
import { isRecord, parseJson, stringAt } from "./json.js";
import { ANTHROPIC_VERSION } from "./protocols/anthropic-messages.js";
import { proxyFetch } from "./proxy.js";
import type { ClientType, Timers } from "./types.js";
import { joinUrl } from "./url.js";

export interface DetectOptions {
  apiKey?: string;
  fetch?: FetchFn;
  /** Per probe. Default 15000. */
  timeoutMs?: number;
  timers?: Timers;
  signal?: AbortSignal;
}

export interface DetectResult {
  clientType: ClientType;
  /** The protocol root for the model entry. */
  baseUrl: string;
  /** The HTTP status of the probe that matched. */
  status: number;
}

type DetectableClient = Exclude<ClientType, "gemini">;

interface Probe {
  clientType: DetectableClient;
  base: string;
  url: string;
  headers: Record<string, string>;
}

function probesFor(baseUrl: string, apiKey: string | undefined): Probe[] {
  const base = baseUrl.replace(/\/+$/, "");
  const bearer: Record<string, string> = { "content-type": "application/json" };
  if (apiKey !== undefined) bearer.authorization = `Bearer ${apiKey}`;
  const anthropic: Record<string, string> = { "content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION };
  if (apiKey !== undefined) anthropic["x-api-key"] = apiKey;
  const probes: Probe[] = [
    { clientType: "openai-responses", base, url: joinUrl(base, "/responses"), headers: bearer },
    { clientType: "anthropic-messages", base, url: joinUrl(base, "/v1/messages"), headers: anthropic },
  ];
  if (/\/v1$/.test(base)) {
    const root = base.slice(0, -3);
    probes.push({ clientType: "anthropic-messages", base: root, url: joinUrl(root, "/v1/messages"), headers: anthropic });
  }
  probes.push({ clientType: "openai-chat", base, url: joinUrl(base, "/chat/completions"), headers: bearer });
  return probes;
}

/** Does this reply come from a server that speaks `clientType` at that path? */
export function isProtocolShaped(clientType: DetectableClient, status: number, body: string): boolean {
  if (status === 404 || status === 405) return false;
  const parsed = parseJson(body);
  if (!parsed.ok || !isRecord(parsed.value)) return false;
  const v = parsed.value;
  const openaiError = isRecord(v.error) && typeof v.error.message === "string";
  switch (clientType) {
    case "openai-responses":
      return openaiError || v.object === "response";
    case "anthropic-messages":
      return (v.type === "error" && stringAt(v.error, "type") !== undefined) || v.type === "message";
    case "openai-chat":
      return openaiError || typeof v.error === "string" || v.object === "error" || v.object === "chat.completion" || v.detail !== undefined;
  }
}

/** The first protocol served at `baseUrl`, or undefined when none answered in its own shape. */
export async function detectProtocol(baseUrl: string, opts: DetectOptions = {}): Promise<DetectResult | undefined> {
  for (const probe of probesFor(baseUrl, opts.apiKey)) {
    const sent = await send(
      { url: probe.url, headers: probe.headers, body: "{}" },
      {
        fetch: opts.fetch ?? proxyFetch(),
        timeoutMs: opts.timeoutMs ?? 15000,
        timers: opts.timers ?? globalTimers,
        signal: opts.signal,
      },
    );
    if (!sent.ok) {
      if (sent.failure.kind === "aborted") return undefined;
      continue;
    }
    const body = await sent.response.text();
    sent.response.close();
    if (isProtocolShaped(probe.clientType, sent.response.status, body)) {
      return { clientType: probe.clientType, baseUrl: probe.base, status: sent.response.status };
    }
  }
  return undefined;
}
