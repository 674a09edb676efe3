/**
 * The shape every wire protocol module fills in: a request builder and a stream reducer.
 *
 * The gateway owns the HTTP call, the SSE framing, the timers and the outcome; a protocol
 * only knows its own JSON. Its reducer is fed one SSE event at a time, drives the
 * ResponseAssembler (segments open, grow, close), and reports how the response ended:
 * `ending` is set the moment the protocol's terminal event arrives (the gateway stops reading
 * there), and `end()` gives the verdict when the body ran out first.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import type { ResponseAssembler } from "../assembler.js";
import type { Failure } from "../errors.js";
import type { WireRequest } from "../http.js";
import type { SseEvent } from "../sse.js";
import type { FinishKind, ModelRequest } from "../types.js";

export type Ending =
  | { kind: "completed"; usage: TokenCounts | undefined; finish: FinishKind }
  | { kind: "failed"; failure: Failure };

export interface StreamReducer {
  /** Feed one SSE event. */
  feed(event: SseEvent): void;
  /** Set once the response reached its terminal event (or an error that ends it). */
  readonly ending: Ending | undefined;
  /** The body ended before `ending` was set: completed if the protocol allows it, else malformed. */
  end(): Ending;
}

export interface ProtocolAdapter {
  buildRequest(req: ModelRequest, apiKey: string | undefined): WireRequest;
  createReducer(req: ModelRequest, assembler: ResponseAssembler): StreamReducer;
}

export function malformed(detail: string): Ending {
  return { kind: "failed", failure: { kind: "malformed", detail } };
}
