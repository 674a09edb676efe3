/**
 * `startTestkit`: the fake model at the wire. A real `node:http` server (default
 * 127.0.0.1, random port) that answers the four wire protocols from a script, records every
 * model request and checks tool-call pairing on each one (see handle.ts for the order).
 *
 * This file is the thin stateful shell: socket bookkeeping (so `close()` also kills hung and
 * keep-alive connections), the script queue, the request log and its waiters, and routing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { handleModelRequest, type KitState, type Violation } from "./handle.js";
import { modelListBody } from "./model-list.js";
import { matchRoute } from "./routes.js";
import type { RecordedRequest, ScriptStep, WireProtocol } from "./script.js";
import { flatHeaders } from "./record.js";
import { sendJson } from "./write.js";

export type { Violation } from "./handle.js";

export interface TestkitOptions {
  /** Consumed one step per model request, in order. */
  script?: ScriptStep[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Called as each violation is recorded (the CLI prints them). Must not throw. */
  onViolation?: (violation: Violation) => void;
}

export interface Testkit {
  /** `http://<host>:<port>`, no trailing slash. */
  readonly url: string;
  /** The base URL a model entry of this protocol should use. */
  baseUrl(protocol: WireProtocol): string;
  /** Every model request, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Pairing failures, exhaustion and failed steps; `requestIndex` is -1 for a testkit bug. */
  readonly violations: Violation[];
  enqueue(...steps: ScriptStep[]): void;
  /** Steps not yet consumed. */
  pending(): number;
  /** Resolves once `count` model requests have arrived; rejects if the testkit closes first. */
  waitForRequests(count: number): Promise<void>;
  /** Stops the server and destroys every open socket, hung responses included. */
  close(): Promise<void>;
}

interface Waiter {
  count: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export async function startTestkit(options: TestkitOptions = {}): Promise<Testkit> {
  const host = options.host ?? "127.0.0.1";
  const queue: ScriptStep[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const waiters: Waiter[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();

  const kit: KitState = {
    queue,
    requests,
    closed: closing.signal,
    recorded() {
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    reportViolation(violation) {
      violations.push(violation);
      options.onViolation?.(violation);
    },
  };

  const server = createServer((req, res) => {
    readBody(req)
      .then((rawBody) => dispatch(kit, req, res, rawBody))
      .catch((error: unknown) => {
        const message = `testkit internal error: ${error instanceof Error ? error.message : String(error)}`;
        kit.reportViolation({ requestIndex: -1, message });
        if (res.headersSent) res.destroy();
        else sendJson(res, 500, JSON.stringify({ error: { message } }));
      });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const port = await listen(server, host, options.port ?? 0);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    baseUrl: (protocol) => baseUrlFor(url, protocol),
    requests,
    violations,
    enqueue: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      if (closing.signal.aborted) return Promise.reject(new Error(`testkit closed with ${requests.length} of ${count} requests`));
      return new Promise((resolve, reject) => waiters.push({ count, resolve, reject }));
    },
    close() {
      closed ??= new Promise((resolve) => {
        closing.abort();
        for (const waiter of waiters.splice(0)) {
          waiter.reject(new Error(`testkit closed with ${requests.length} of ${waiter.count} requests`));
        }
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

export function baseUrlFor(url: string, protocol: WireProtocol): string {
  switch (protocol) {
    case "openai-chat":
    case "openai-responses":
      return `${url}/v1`;
    case "anthropic-messages":
      return url;
    case "gemini":
      return `${url}/v1beta`;
  }
}

async function dispatch(kit: KitState, req: IncomingMessage, res: ServerResponse, rawBody: string): Promise<void> {
  const method = req.method ?? "GET";
  const target = req.url ?? "/";
  const headers = flatHeaders(req.headers);
  const route = matchRoute(method, new URL(target, "http://testkit.invalid").pathname, headers);
  switch (route.kind) {
    case "model":
      return handleModelRequest(
        kit,
        {
          incoming: { protocol: route.protocol, method, path: target, headers: req.headers, rawBody, urlModel: route.model },
          geminiStream: route.protocol === "gemini" ? route.stream : undefined,
        },
        res,
      );
    case "model-list":
      return sendJson(res, 200, JSON.stringify(modelListBody(route.shape)));
    case "unknown":
      return sendJson(res, 404, JSON.stringify({ error: { message: `testkit: no route for ${method} ${target}`, type: "not_found" } }));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
  });
}

function listen(server: ReturnType<typeof createServer>, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      if (address === null || typeof address === "string") reject(new Error("testkit: the server has no TCP address"));
      else resolve((address satisfies AddressInfo).port);
    });
  });
}
