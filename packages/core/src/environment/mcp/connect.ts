/**
 * Connecting one MCP server: start its transport, run the MCP handshake, list its tools,
 * all inside the server's connect budget. The answer is a value, never a throw: either a
 * live `ServerLink` or the reason the server is skipped (SPEC §4: a failing or slow
 * server never blocks the others).
 *
 * The budget (`connectTimeoutMs`) covers everything up to the tool list; when it runs
 * out, or the caller aborts, the attempt is cancelled and whatever was started is stopped
 * (a stdio child gets SIGTERM at once: a server that failed has no claim to a grace period).
 * A stdio server's stderr tail is appended to its error, which is usually where the
 * actual cause ("missing API key", a stack trace) is.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { MAX_TIMER_MS, type McpServerEntry } from "./config.js";
import { createTransport, stopTransport, type OpenTransport, type TransportOptions } from "./transport.js";

/** Where we stop following `nextCursor` in tools/list (a server looping on cursors). */
const MAX_TOOL_PAGES = 100;

export interface ConnectSettings {
  clientName: string;
  clientVersion: string;
  /** Used when the entry sets no `connectTimeoutMs`. */
  connectTimeoutMs: number;
  /** How long a stopping stdio server gets before each signal, and HTTP before giving up. */
  closeGraceMs: number;
  transport: TransportOptions;
}

/** A connected server. */
export interface ServerLink {
  readonly name: string;
  readonly client: Client;
  readonly tools: readonly Tool[];
  /** Why the connection can no longer be used (process exited, connection closed), if so. */
  lostReason(): string | undefined;
  /** Closes the client and stops the server process; idempotent, never rejects. */
  close(): Promise<void>;
}

export type ConnectOutcome =
  | { status: "connected"; link: ServerLink; durationMs: number }
  | { status: "failed"; error: string; durationMs: number };

/** A readable one-line reason from whatever was thrown. */
export function describeError(error: unknown, command?: string): string {
  if (error instanceof Error) {
    if ("code" in error && error.code === "ENOENT" && command !== undefined) {
      return `cannot start "${command}": command not found (is it installed and on PATH?)`;
    }
    if ((error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === "number") {
      return error.message.includes(String(error.code)) ? error.message : `${error.message} (HTTP ${error.code})`;
    }
    return error.message;
  }
  return String(error);
}

async function listAllTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
  if (client.getServerCapabilities()?.tools === undefined) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const listed = await client.listTools(cursor !== undefined ? { cursor } : undefined, {
      signal,
      timeout: MAX_TIMER_MS,
    });
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

type Cut = "timeout" | "aborted";
type Settled<T> = { ok: true; value: T } | { ok: false; cut?: Cut; error?: unknown };

/** Settles `work`, or answers with the cut reason as soon as `signal` aborts. */
function settle<T>(work: Promise<T>, signal: AbortSignal, cut: () => Cut): Promise<Settled<T>> {
  const cancelled = new Promise<Settled<T>>((resolve) => {
    const onAbort = (): void => resolve({ ok: false, cut: cut() });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const finished = work.then<Settled<T>, Settled<T>>(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
  return Promise.race([cancelled, finished]);
}

function makeLink(
  entry: McpServerEntry,
  client: Client,
  open: OpenTransport,
  tools: Tool[],
  graceMs: number,
): ServerLink {
  let lost: string | undefined;
  let closing: Promise<void> | undefined;
  client.onclose = () => {
    if (closing !== undefined) return;
    const tail = open.kind === "stdio" ? open.child.stderrTail() : "";
    const what = open.kind === "stdio" ? "the server process exited" : "the connection was closed";
    lost = tail !== "" ? `${what}; its stderr ends with: ${tail}` : what;
  };
  return {
    name: entry.name,
    client,
    tools,
    lostReason: () => (closing !== undefined ? "the MCP client was closed" : lost),
    close: () => {
      closing ??= stopTransport(open, () => client.close(), { graceMs, failed: false });
      return closing;
    },
  };
}

/**
 * Why a sandboxed server's command may exist on the host yet not start: bwrap could not run
 * it because the sandbox does not show it (a tool in /tmp, or under a home folder and not on PATH).
 */
function sandboxHint(sandboxed: boolean, stderrTail: string): string {
  if (!sandboxed || !stderrTail.includes("bwrap: execvp")) return "";
  return " (the command is not visible inside the session's sandbox: /tmp is empty there and home folders are private, except the tools on PATH; install it elsewhere or put its folder on PATH)";
}

/** Connects one server within its budget; see the header for the rules. */
export async function connectServer(
  entry: McpServerEntry,
  settings: ConnectSettings,
  signal?: AbortSignal,
): Promise<ConnectOutcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const config = entry.config;
  const budget = config.connectTimeoutMs ?? settings.connectTimeoutMs;
  const command = config.transport === "http" || config.transport === "sse" ? undefined : config.command;

  if (signal?.aborted) return { status: "failed", error: "connect aborted", durationMs: 0 };

  let open: OpenTransport;
  try {
    open = createTransport(entry.name, config, settings.transport);
  } catch (error) {
    return { status: "failed", error: describeError(error, command), durationMs: elapsed() };
  }
  const client = new Client({ name: settings.clientName, version: settings.clientVersion }, { capabilities: {} });

  let cut: Cut | undefined;
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    cut ??= "timeout";
    deadline.abort();
  }, budget);
  const onOuterAbort = (): void => {
    cut ??= "aborted";
    deadline.abort();
  };
  signal?.addEventListener("abort", onOuterAbort, { once: true });

  const attempt = (async () => {
    await client.connect(open.transport, { signal: deadline.signal, timeout: MAX_TIMER_MS });
    return listAllTools(client, deadline.signal);
  })();
  const result = await settle(attempt, deadline.signal, () => cut ?? "aborted");
  clearTimeout(timer);
  signal?.removeEventListener("abort", onOuterAbort);

  if (result.ok) {
    const link = makeLink(entry, client, open, result.value, settings.closeGraceMs);
    return { status: "connected", link, durationMs: elapsed() };
  }

  attempt.catch(() => undefined); // the race is decided; a late rejection is expected
  await stopTransport(open, () => client.close(), { graceMs: settings.closeGraceMs, failed: true });
  const reason =
    result.cut === "timeout"
      ? `no answer within ${budget} ms (connectTimeoutMs)`
      : result.cut === "aborted"
        ? "connect aborted"
        : describeError(result.error, command);
  const tail = open.kind === "stdio" ? open.child.stderrTail() : "";
  const error = (tail !== "" ? `${reason}; server stderr: ${tail}` : reason) + (open.kind === "stdio" ? sandboxHint(open.child.sandboxed, tail) : "");
  return { status: "failed", error, durationMs: elapsed() };
}
