/**
 * The seam between express and the rest of the server. Route handlers and middleware speak
 * in Fetch API `Response`s and a RequestContext (http/request-context.ts): a Response is a
 * complete answer (status, headers, a body that may stream, such as SSE), testable without
 * a socket and independent of the HTTP library. This file is the only place that turns one
 * into bytes on a Node `ServerResponse`:
 *
 * - `attachContext` builds the RequestContext first thing, with an abort signal that fires
 *   when the client goes away (SSE streams and model probes stop on it);
 * - `sendResponse` writes status and headers (each Set-Cookie separately), then pumps the
 *   body with backpressure: it waits for `drain` instead of buffering a slow reader, and
 *   cancels the body when the socket closes so the producer's cleanup runs. An SSE stream
 *   (http/sse.ts) is not pumped: its frames are written to the socket as they come, as
 *   strings, and the stream closes itself when the socket's buffer passes its limit.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { RequestContext } from "./request-context.js";
import { directSseBody } from "./sse.js";

const CONTEXT_KEY = "penguinContext";

export function attachContext(req: ExpressRequest, res: ExpressResponse, next: NextFunction): void {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  res.locals[CONTEXT_KEY] = new RequestContext(req, requestUrl(req), controller.signal);
  next();
}

export function contextOf(res: ExpressResponse): RequestContext {
  const context: unknown = res.locals[CONTEXT_KEY];
  if (!(context instanceof RequestContext)) throw new Error("attachContext must run before any other middleware");
  return context;
}

/** The absolute URL as the client addressed it: the Host header names the origin. */
function requestUrl(req: IncomingMessage): URL {
  const host = req.headers.host ?? "localhost";
  const secure = "encrypted" in req.socket && req.socket.encrypted === true;
  try {
    return new URL(req.url ?? "/", `${secure ? "https" : "http"}://${host}`);
  } catch {
    return new URL(req.url ?? "/", "http://localhost");
  }
}

export async function sendResponse(res: ServerResponse, response: Response, context: RequestContext | undefined): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (context?.renewedCookie !== undefined && context.user !== undefined && cookies.length === 0) cookies.push(context.renewedCookie);
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (response.body === null) {
    res.end();
    return;
  }
  const sse = directSseBody(response);
  if (sse !== undefined) {
    res.flushHeaders();
    res.once("close", () => sse.cancel());
    if (res.destroyed) {
      sse.cancel();
      return;
    }
    sse.attach({
      write(frame) {
        if (!res.destroyed) res.write(frame);
        return res.writableLength;
      },
      end() {
        if (!res.destroyed) res.end();
      },
    });
    return;
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once("close", cancel);
  res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch {
    // The body's producer failed mid-stream: the status is already sent, so end the socket.
    res.destroy();
  } finally {
    res.off("close", cancel);
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}
