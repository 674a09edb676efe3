/**
 * The CLI as a client of a running server's streams (`attach`, `sessions --watch`,
 * `usage --watch`): finding the server (a --server URL, else the one whose server.lock sits
 * on the data root), signing in with PENGUIN_PASSWORD (never a flag: it stays out of shell
 * history and `ps`), and following an SSE stream for good: when the connection drops it
 * reconnects after the server's `retry:` hint with Last-Event-ID, so the server resumes the
 * stream exactly where it was (from the trace for a session; by projection position for the
 * user feed), also across a server restart.
 */
import { SseParser, type SseEvent } from "./sse-reader.js";

const DEFAULT_RETRY_MS = 2000;

/** The server to talk to: the --server URL, else the running server of the data root, else undefined. */
export async function serverBase(flags: { server?: string | undefined; root?: string | undefined }, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (flags.server !== undefined) return flags.server.replace(/\/+$/, "");
  const { resolveRoot } = await import("@penguin/core");
  const { findRunningServer } = await import("@penguin/server");
  return findRunningServer(resolveRoot(flags.root, env));
}

/** Signs in; answers the session cookie. Throws a message naming what to check. */
export async function signIn(base: string, userId: string, password: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId, password }) });
  } catch (error) {
    throw new Error(`cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (res.status !== 200) throw new Error(`signing in as ${userId} failed (${res.status}): check the user id and PENGUIN_PASSWORD`);
  const pair = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  if (pair === "") throw new Error("the server answered the sign-in without a session cookie");
  return pair;
}

export type FollowEnd = "detached" | "gone" | "forbidden";

/**
 * Follows `path` until `signal` aborts ("detached") or the server answers 404 ("gone") or
 * 403 ("forbidden"). Drops are resumed with Last-Event-ID; `onReconnect` runs before each retry.
 */
export async function followStream(base: string, path: string, cookie: string, onEvent: (e: SseEvent) => void, signal: AbortSignal, onReconnect?: () => void): Promise<FollowEnd> {
  const parser = new SseParser();
  for (;;) {
    const answer = await followOnce(base, path, cookie, parser, onEvent, signal);
    if (signal.aborted) return "detached";
    if (answer !== "ended") return answer;
    await pause(parser.retryMs ?? DEFAULT_RETRY_MS, signal);
    if (signal.aborted) return "detached";
    onReconnect?.();
  }
}

/** Reads the stream until it ends: "ended" (dropped or closed), or why it could not start. */
async function followOnce(base: string, path: string, cookie: string, parser: SseParser, onEvent: (e: SseEvent) => void, signal: AbortSignal): Promise<"ended" | "gone" | "forbidden"> {
  const headers: Record<string, string> = { cookie, accept: "text/event-stream" };
  if (parser.lastEventId !== undefined) headers["last-event-id"] = parser.lastEventId;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, { headers, signal });
  } catch {
    return "ended";
  }
  if (res.status === 404) return "gone";
  if (res.status === 403) return "forbidden";
  if (res.status !== 200 || res.body === null) return "ended";
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const e of parser.push(decoder.decode(value, { stream: true }))) onEvent(e);
    }
  } catch {
    // Aborted by Ctrl-C, or the connection broke: either way this attempt is over.
  }
  return "ended";
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** An AbortSignal that Ctrl-C aborts; `release` removes the handler. */
export function detachOnSigint(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  return { signal: controller.signal, release: () => void process.off("SIGINT", onSigint) };
}
