/**
 * Low-level response writing that a test can rely on: each write resolves only once Node has
 * handed the bytes to the socket, so "N events, then a fault" really puts N events on the
 * wire first. Every wait gives up quietly when the response's signal aborts (the client went
 * away or the testkit closed) and reports that by returning false.
 */
import type { ServerResponse } from "node:http";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";

export function writePiece(res: ServerResponse, piece: string | Uint8Array, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    res.write(piece, (error) => {
      signal.removeEventListener("abort", onAbort);
      resolve(error === undefined || error === null);
    });
  });
}

/** Wait `ms` on a real timer (only ever called with ms > 0); false if aborted meanwhile. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Let the event loop turn once, so the bytes written so far leave as their own TCP segment. */
export async function flushTurn(signal: AbortSignal): Promise<boolean> {
  try {
    await nextTurn(undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/** Send a complete JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}
