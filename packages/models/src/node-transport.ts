/**
 * The gateway's default transport: one request over `node:http` / `node:https`, handed back as
 * a status, a header reader and body chunks as they arrive.
 *
 * Why not the global `fetch`: on Node 20 it is undici, compiled on its first use together with
 * web streams, http2, zlib and assert, about 25 ms of CPU that a one-turn `penguin run` paid for
 * its single request. A model request needs far less than fetch offers: send a string body, read
 * the status and headers, read the body piece by piece, abort. This file gives exactly that and
 * keeps the observable rules of fetch that the rest of the gateway relies on:
 * - reserved ports (fetch's "bad port" list: 9, 6000…) are refused before connecting, with the
 *   same "bad port" message errors.ts turns into its configuration hint;
 * - redirects are followed (fetch's default): 307/308 keep the method and body, 303 (and 301/302
 *   after a POST) continue as a GET without a body, at most 20 hops, and a hop to another origin
 *   drops the headers that carry credentials, so a key never follows a redirect elsewhere;
 * - a body the server compressed anyway (gzip, deflate, br) is decoded; we ask for none.
 * Connections are kept alive (Node's global agent): a complete answer's connection goes back to
 * the agent (`release`), so the next turn's request does not connect again.
 * Connection errors keep Node's own `code` (ECONNREFUSED, ENOTFOUND, ECONNRESET…), which
 * errors.ts names. `node:https` and `node:zlib` are loaded only when a request needs them.
 * Proxies are not handled here: with proxy variables set the gateway uses undici (proxy.ts).
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import type { HeaderReader } from "./errors.js";

/** What one request needs: the caller's signal aborts it at any point, body reads included. */
export interface TransportRequest {
  method: "POST" | "GET";
  headers: Record<string, string>;
  /** Chunks are written one after another, never joined (a long history's list is a few views of the wire cache's buffer). */
  body: string | Uint8Array | readonly Uint8Array[] | undefined;
  signal: AbortSignal;
}

/** An open response; `next()` resolves undefined at the end and rejects on a transport failure. */
export interface TransportResponse {
  status: number;
  headers: HeaderReader;
  next(): Promise<Uint8Array | undefined>;
  /** Drops the response and its connection (an answer read only in part). */
  cancel(): void;
  /**
   * The answer is complete: what is left of the body is read and dropped, so the connection can
   * carry the next request. Resolves once it can, when the whole body is in already; else at
   * once, the rest read behind.
   */
  release(): Promise<void>;
}

/** The ports fetch refuses to connect to (the WHATWG Fetch standard's "bad port" list). */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531,
  532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const MAX_REDIRECTS = 20;
/** Sent when the caller sets none (fetch sent "node"). */
const USER_AGENT = "penguin-harness";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry a credential: never sent on to another origin after a redirect. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key", "x-goog-api-key", "api-key"]);
/** Headers that describe the body: dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(["content-type", "content-length", "content-encoding", "content-language", "content-location"]);

type RequestFn = typeof httpRequest;
let httpsRequest: Promise<RequestFn> | undefined;

function requestFnFor(url: URL): Promise<RequestFn> | RequestFn {
  if (url.protocol === "http:") return httpRequest;
  if (url.protocol === "https:") return (httpsRequest ??= import("node:https").then((m) => m.request));
  throw new TypeError(`unsupported URL scheme ${url.protocol} (use http: or https:)`);
}

function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function abortError(): Error {
  const error = new Error("This operation was aborted");
  error.name = "AbortError";
  return error;
}

function withoutHeaders(headers: Record<string, string>, drop: Set<string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!drop.has(name.toLowerCase())) kept[name] = value;
  return kept;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/** One hop: resolves when the response headers are in. */
async function requestOnce(url: URL, method: string, headers: Record<string, string>, body: TransportRequest["body"], signal: AbortSignal): Promise<IncomingMessage> {
  if (BAD_PORTS.has(portOf(url))) throw new TypeError("bad port");
  const send = await requestFnFor(url);
  if (signal.aborted) throw abortError();
  const outgoing: OutgoingHttpHeaders = { ...headers };
  if (!hasHeader(headers, "accept")) outgoing.accept = "*/*";
  if (!hasHeader(headers, "accept-encoding")) outgoing["accept-encoding"] = "identity";
  // Some gateways in front of model APIs refuse a request that names no client.
  if (!hasHeader(headers, "user-agent")) outgoing["user-agent"] = USER_AGENT;
  // Encoded once: its length is the header, and the socket gets the bytes without encoding the
  // string again (a long history's body is tens of MB; counting then encoding it cost twice).
  let chunks: readonly Uint8Array[] | undefined = body === undefined ? undefined : typeof body === "string" ? [Buffer.from(body, "utf8")] : body instanceof Uint8Array ? [body] : body;
  if (chunks !== undefined) outgoing["content-length"] = chunks.reduce((n, c) => n + c.length, 0);
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(url, { method, headers: outgoing });
    const onAbort = (): void => {
      req.destroy(abortError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("response", (res) => {
      signal.removeEventListener("abort", onAbort);
      resolve(res);
    });
    req.once("error", (err) => {
      signal.removeEventListener("abort", onAbort);
      reject(err);
    });
    for (const chunk of chunks ?? []) if (chunk.length > 0) req.write(chunk);
    req.end();
    // The listeners above live as long as the response: they must not keep the body (a long
    // history's is tens of MB, a server holds one per streaming session).
    chunks = undefined;
  });
}

function headerReader(headers: IncomingHttpHeaders): HeaderReader {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** The body as a readable of decoded bytes: the response itself, or a zlib decoder fed by it. */
async function decodedBody(res: IncomingMessage): Promise<AsyncIterable<Uint8Array>> {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  // No setEncoding is ever called on these streams, so every chunk is a Buffer.
  if (encoding === "" || encoding === "identity") return res as AsyncIterable<Buffer>;
  const zlib = await import("node:zlib");
  const { pipeline } = await import("node:stream");
  const decoder = encoding === "gzip" || encoding === "x-gzip" ? zlib.createGunzip() : encoding === "deflate" ? zlib.createInflate() : encoding === "br" ? zlib.createBrotliDecompress() : undefined;
  if (decoder === undefined) return res as AsyncIterable<Buffer>; // an encoding we cannot decode: the bytes as they came, as fetch does
  // pipeline destroys the decoder with the response's error, so a broken connection still rejects the read.
  pipeline(res, decoder, () => undefined);
  return decoder;
}

/** Sends the request, following redirects, and opens the final response. */
export async function openOverNodeHttp(url: string, request: TransportRequest): Promise<TransportResponse> {
  let target = new URL(url);
  let method: string = request.method;
  let headers = request.headers;
  let body = request.body;
  let res: IncomingMessage;
  for (let hop = 0; ; hop++) {
    res = await requestOnce(target, method, headers, body, request.signal);
    const location = res.headers.location;
    const status = res.statusCode ?? 0;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) break;
    res.destroy();
    if (hop === MAX_REDIRECTS) throw new TypeError(`redirect count exceeded (more than ${MAX_REDIRECTS} redirects from ${url})`);
    const next = new URL(location, target);
    if ((status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      headers = withoutHeaders(headers, BODY_HEADERS);
    }
    if (next.origin !== target.origin) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
    target = next;
  }
  const response = res;
  // What the reader below keeps is the signal, not the request (whose body is done with).
  const signal = request.signal;
  const stream = await decodedBody(response);
  const onAbort = (): void => {
    response.destroy(abortError());
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // An abort while the decoder was loading (an `await` above) fired before the listener existed.
  if (signal.aborted) onAbort();
  const chunks = stream[Symbol.asyncIterator]();
  return {
    status: response.statusCode ?? 0,
    headers: headerReader(response.headers),
    async next() {
      const r = await chunks.next();
      return r.done === true ? undefined : r.value;
    },
    cancel() {
      signal.removeEventListener("abort", onAbort);
      response.destroy();
    },
    release() {
      signal.removeEventListener("abort", onAbort);
      return drainForReuse(response, chunks);
    },
  };
}

/** At most this much body after the answer's terminal event is read to keep its connection. */
const RELEASE_BYTES = 64 * 1024;
/** And for at most this long: a server that holds the body open loses the connection instead. */
const RELEASE_MS = 2000;

/**
 * Reads the last bytes of an answer whose terminal event came in (a chunked body's closing
 * chunk, a trailing blank line), so Node's agent takes the socket back for the next request:
 * a destroyed response takes its connection with it, and every turn would connect (and, to a
 * provider, shake hands over TLS) again. When the body is all in already (the usual case: the
 * closing chunk comes with the terminal event), this resolves once the agent has the socket
 * back, so a request sent right after finds it; otherwise at once.
 */
function drainForReuse(response: IncomingMessage, chunks: AsyncIterator<Uint8Array>): Promise<void> {
  const socket = response.socket;
  if (response.readableEnded || socket === null || socket.destroyed) return Promise.resolve();
  const timer = setTimeout(() => response.destroy(), RELEASE_MS);
  timer.unref();
  // The agent hears the socket's "free" before this does (its listener came first), and a socket
  // not kept is closed instead.
  const settled = new Promise<void>((resolve) => {
    const done = (): void => {
      socket.off("free", done);
      socket.off("close", done);
      resolve();
    };
    socket.on("free", done);
    socket.on("close", done);
  });
  const allIn = response.complete;
  let left = RELEASE_BYTES;
  const drain = async (): Promise<void> => {
    for (;;) {
      const r = await chunks.next();
      if (r.done === true) return;
      left -= r.value.length;
      if (left < 0) return void response.destroy();
    }
  };
  drain()
    .catch(() => response.destroy())
    .finally(() => clearTimeout(timer));
  return allIn ? settled : Promise.resolve();
}
