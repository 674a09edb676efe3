/**
 * HTTP proxies: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (either case) through undici's
 * `EnvHttpProxyAgent`, passed as the `dispatcher` of our own fetch calls only; the process-wide
 * dispatcher is never changed, so other code in the process is unaffected.
 *
 * Loopback (`localhost`, `127.0.0.1`, `::1`) always bypasses the proxy: local model servers
 * (Ollama, vLLM, the testkit) must be reachable whatever the proxy settings. We use undici's
 * own `fetch` with the agent (the package's dispatcher and Node's bundled fetch are different
 * undici versions). Without proxy variables the gateway sends over node:http(s) (http.ts);
 * `defaultFetch` still answers "which fetch" for callers that want one (the global fetch).
 */
import type { EnvHttpProxyAgent, fetch as undiciFetch } from "undici";
import type { Env } from "./credentials.js";
import type { FetchFn } from "./http.js";

const LOOPBACK = ["localhost", "127.0.0.1", "::1", "[::1]"];

function envValue(env: Env, name: string): string | undefined {
  const v = env[name] ?? env[name.toLowerCase()];
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  /** Comma-separated, loopback always included. */
  noProxy: string;
}

/** The proxy settings in `env`, or undefined when no proxy variable is set. */
export function proxySettings(env: Env = process.env): ProxySettings | undefined {
  const httpProxy = envValue(env, "HTTP_PROXY");
  const httpsProxy = envValue(env, "HTTPS_PROXY");
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  const listed = (envValue(env, "NO_PROXY") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const noProxy = [...new Set([...listed, ...LOOPBACK])].join(",");
  return { httpProxy, httpsProxy: httpsProxy ?? httpProxy, noProxy };
}

/** True when a request to `url` must not go through the proxy (loopback or NO_PROXY). */
export function bypassesProxy(url: string, settings: ProxySettings): boolean {
  let host: string;
  let port: string;
  try {
    const u = new URL(url);
    host = u.hostname.toLowerCase().replace(/^\[|\]$/g, "");
    port = u.port;
  } catch {
    return false;
  }
  for (const raw of settings.noProxy.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const [name, entryPort] = entry.startsWith("[") ? [entry.slice(1, entry.indexOf("]")), entry.split("]:")[1]] : entry.split(":");
    if (name === undefined) continue;
    if (entryPort !== undefined && entryPort !== port) continue;
    const bare = name.replace(/^\*?\./, "");
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/**
 * A fetch that goes through the proxy agent for these settings. undici is loaded on the first
 * proxied request only: it is a large module and most runs use no proxy (start-up time).
 */
export function proxiedFetch(settings: ProxySettings): FetchFn {
  const opts: { noProxy: string; httpProxy?: string; httpsProxy?: string } = { noProxy: settings.noProxy };
  if (settings.httpProxy !== undefined) opts.httpProxy = settings.httpProxy;
  if (settings.httpsProxy !== undefined) opts.httpsProxy = settings.httpsProxy;
  let loaded: Promise<{ dispatcher: EnvHttpProxyAgent; fetch: typeof undiciFetch }> | undefined;
  const load = () => (loaded ??= import("undici").then((u) => ({ dispatcher: new u.EnvHttpProxyAgent(opts), fetch: u.fetch })));
  const viaProxy: FetchFn = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (bypassesProxy(url, settings)) return globalThis.fetch(input, init);
    const { dispatcher, fetch } = await load();
    // undici's fetch and the global one share their runtime shapes; only their typings differ.
    return fetch(url, { ...toUndiciInit(init), dispatcher }) as unknown as Promise<Response>;
  };
  return viaProxy;
}

function toUndiciInit(init: RequestInit | undefined): Parameters<typeof undiciFetch>[1] {
  if (init === undefined) return {};
  const out: NonNullable<Parameters<typeof undiciFetch>[1]> = {};
  if (init.method !== undefined) out.method = init.method;
  if (init.signal !== undefined && init.signal !== null) out.signal = init.signal;
  if (typeof init.body === "string" || init.body instanceof Uint8Array) out.body = init.body;
  if (init.headers !== undefined) {
    const h = new Headers(init.headers);
    const record: Record<string, string> = {};
    h.forEach((v, k) => {
      record[k] = v;
    });
    out.headers = record;
  }
  return out;
}

let cached: { key: string; fetch: FetchFn } | undefined;

/**
 * The fetch the gateway sends through by default: the proxied one when proxy variables are set,
 * else undefined, which `send` (http.ts) takes as "use node:http(s)".
 */
export function proxyFetch(env: Env = process.env): FetchFn | undefined {
  const settings = proxySettings(env);
  if (settings === undefined) return undefined;
  const key = JSON.stringify(settings);
  if (cached?.key !== key) cached = { key, fetch: proxiedFetch(settings) };
  return cached.fetch;
}

/** A fetch for these settings: proxied when proxy variables are set, else the global fetch. */
export function defaultFetch(env: Env = process.env): FetchFn {
  return proxyFetch(env) ?? globalThis.fetch;
}
