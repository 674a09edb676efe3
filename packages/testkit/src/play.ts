/**
 * Play a rendered turn onto an HTTP response, honouring the turn's pacing and fault.
 *
 * Streams write one SSE event per write. A fault cuts the stream after `afterEvents` events
 * (default 1): `hang` then stays silent until the testkit closes, `reset` destroys the socket,
 * `malformed` sends a data line that is not JSON and ends, `truncate` ends cleanly but never
 * sends the terminal event (it is capped so the last event is always withheld). `http` faults
 * are answered before anything is rendered (see handle.ts). Real timers run only when
 * `delayMs > 0`.
 */
import type { ServerResponse } from "node:http";
import type { Fault } from "./script.js";
import { formatSse, type SseEvent } from "./sse.js";
import { pause, SSE_HEADERS, writePiece } from "./write.js";

export const MALFORMED_LINE = "data: {this is not JSON, it is a testkit malformed fault\n\n";

export type StreamFault = Exclude<Fault, { kind: "http" }>;

/** How many events go out before the fault strikes. */
export function eventsBeforeFault(fault: StreamFault | undefined, total: number): number {
  if (fault === undefined) return total;
  const wanted = Math.max(0, fault.afterEvents ?? 1);
  return fault.kind === "truncate" ? Math.min(wanted, Math.max(0, total - 1)) : Math.min(wanted, total);
}

export async function playStream(
  res: ServerResponse,
  events: SseEvent[],
  delayMs: number,
  fault: StreamFault | undefined,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  const count = eventsBeforeFault(fault, events.length);
  for (let i = 0; i < count; i++) {
    if (i > 0 && delayMs > 0 && !(await pause(delayMs, signal))) return;
    const event = events[i];
    if (event === undefined || !(await writePiece(res, formatSse(event), signal))) return;
  }
  await finish(res, fault, signal);
}

async function finish(res: ServerResponse, fault: StreamFault | undefined, signal: AbortSignal): Promise<void> {
  switch (fault?.kind) {
    case undefined:
    case "truncate":
      res.end();
      return;
    case "malformed":
      await writePiece(res, MALFORMED_LINE, signal);
      res.end();
      return;
    case "reset":
      res.socket?.destroy();
      return;
    case "hang":
      return;
  }
}

/**
 * Play a non-streamed answer. Faults map onto the one body: `hang` sends headers and waits,
 * `reset` drops the connection before the body, `malformed` sends text that is not JSON,
 * `truncate` sends the first half of the JSON.
 */
export async function playBody(res: ServerResponse, body: string, fault: StreamFault | undefined, signal: AbortSignal): Promise<void> {
  if (fault?.kind === "reset") {
    res.socket?.destroy();
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.flushHeaders();
  switch (fault?.kind) {
    case "hang":
      return;
    case "malformed":
      res.end("{this is not JSON, it is a testkit malformed fault");
      return;
    case "truncate":
      await writePiece(res, body.slice(0, Math.floor(body.length / 2)), signal);
      res.end();
      return;
    case undefined:
      res.end(body);
      return;
  }
}
