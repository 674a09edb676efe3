// Puts a server app on a real socket on 127.0.0.1 for a test, and sends requests to it
// addressed by any URL: `http://localhost/api/...` goes to the listening port with the URL's
// host kept as the Host header (so origin checks and preview hosts see what a browser would
// send). Bodies stream back as a Fetch Response, so SSE tests read them as they arrive.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { RequestListener } from "node:http";

export interface ListeningApp {
  port: number;
  server: Server;
  /** fetch-like: the URL's host becomes the Host header, the connection goes to 127.0.0.1:port. */
  request(url: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function listenOnLoopback(app: RequestListener): Promise<ListeningApp> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    server,
    request: (url, init) => sendTo(port, url, init),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function sendTo(port: number, url: string, init: RequestInit = {}): Promise<Response> {
  const target = new URL(url);
  const headers: Record<string, string> = { host: target.host };
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const body = init.body === undefined || init.body === null ? undefined : typeof init.body === "string" ? init.body : Buffer.from(await new Response(init.body).arrayBuffer());
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method: init.method ?? "GET", path: `${target.pathname}${target.search}`, headers }, (res) => {
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
        else if (value !== undefined) responseHeaders.set(name, value);
      }
      const status = res.statusCode ?? 500;
      const noBody = status === 204 || status === 304 || init.method === "HEAD";
      if (noBody) res.resume();
      const stream = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      resolve(new Response(stream, { status, headers: responseHeaders }));
    });
    req.on("error", reject);
    init.signal?.addEventListener("abort", () => req.destroy(new Error("aborted")), { once: true });
    if (body !== undefined) req.write(body);
    req.end();
  });
}
