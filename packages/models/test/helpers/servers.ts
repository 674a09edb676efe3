/**
 * Tiny real HTTP servers for the cases the testkit deliberately does not play: a server that
 * speaks only one protocol (detection), a paged or failing model list, and an HTTP proxy.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface LocalServer {
  url: string;
  seen: SeenRequest[];
  server: Server;
  close(): Promise<void>;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

export async function startServer(handler: Handler): Promise<LocalServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s: SeenRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export function html(res: ServerResponse, status: number): void {
  res.writeHead(status, { "content-type": "text/html" });
  res.end("<!doctype html><html><body>Not here</body></html>");
}

/** A minimal, complete chat-completions stream. */
export function chatSse(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`);
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
  res.end("data: [DONE]\n\n");
}
