/**
 * Forwarding a session write to the node that runs the session. A load balancer sends each
 * request to any node; a write to a session (a task, a follow-up, steering, an approval, an
 * abort, a setting) must reach the one node that holds its lease row, since only that node has
 * the session loaded. So a node that gets such a write for a session another live node runs
 * passes the request on, as it came, to that node's advertised URL, and relays the answer.
 *
 * Why forward rather than answer 409/307 naming the node: behind a balancer the client cannot
 * choose a node (the advertised URL is an internal address), so a redirect would fail or loop;
 * forwarding keeps every client unchanged.
 *
 * Auth: the request carries the user's own credentials (the cookie, or the Authorization
 * header) unchanged to the runner, which authenticates and checks access itself against the
 * shared facts: no node trusts another's word about who the user is, and there is no cluster
 * secret that would let a leaked value act as anyone. Only signed-in requests are forwarded (an
 * anonymous write is answered here, 401). Nothing of the request is logged. The Origin header is
 * dropped (this node's write guard has checked it against this node's host; the runner's host is
 * another). `x-penguin-forwarded-by` marks a forwarded request, which is never forwarded again:
 * if the lease moved on meanwhile, the runner answers it itself (409 `session_busy` if it cannot).
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { ApiError } from "../http/api-error.js";
import { contextOf } from "../http/express-adapter.js";
import type { ClusterNode } from "./cluster-node.js";

export const FORWARDED_BY_HEADER = "x-penguin-forwarded-by";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SESSION_PATH = /^\/api\/sessions\/([^/]+)(?:\/|$)/;
/** The request headers the runner needs; the rest (Host, Origin, hop-by-hop ones) are not passed on. */
const PASSED_ON = ["content-type", "content-length", "cookie", "authorization", "accept", "traceparent", "tracestate", "user-agent", "last-event-id"];
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"]);
/** How long the runner may take to answer a forwarded write (they answer at once: a task is accepted, not awaited). */
const FORWARD_TIMEOUT_MS = 60_000;

export function forwardSessionWrites(cluster: ClusterNode) {
  return function forwardToRunner(req: ExpressRequest, res: ExpressResponse, next: NextFunction): void {
    const c = contextOf(res);
    if (!WRITES.has(c.method) || c.user === undefined || c.header(FORWARDED_BY_HEADER) !== undefined) return next();
    const match = SESSION_PATH.exec(c.path);
    if (match === null) return next();
    let sessionId: string;
    try {
      sessionId = decodeURIComponent(match[1]!);
    } catch {
      return next();
    }
    const runner = cluster.whereRuns(sessionId);
    if (runner === undefined) return next();
    if (runner.url === null) {
      return next(new ApiError(409, "session_busy", `session ${sessionId} is being run by node ${runner.nodeId} of this cluster, which has no address yet; try again in a moment`));
    }
    relay(req, res, new URL(`${c.path}${c.url.search}`, runner.url), cluster.nodeId, (error) =>
      next(new ApiError(503, "session_unavailable", `session ${sessionId} runs on node ${runner.nodeId} (${runner.url}), which did not answer (${error.message}); if that node is gone, another takes the session over within ${cluster.leaseMs / 1000} s: try again then`)),
    );
  };
}

function relay(req: ExpressRequest, res: ExpressResponse, target: URL, nodeId: string, failed: (error: Error) => void): void {
  const headers: Record<string, string> = { [FORWARDED_BY_HEADER]: nodeId };
  for (const name of PASSED_ON) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  let answered = false;
  const upstream = send(target, { method: req.method, headers, timeout: FORWARD_TIMEOUT_MS }, (answer) => {
    answered = true;
    res.writeHead(answer.statusCode ?? 502, passBack(answer.headers));
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  upstream.on("timeout", () => upstream.destroy(new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`)));
  upstream.on("error", (error) => {
    if (answered || res.headersSent) res.destroy();
    else failed(error);
  });
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

function passBack(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = value;
  }
  return out;
}
