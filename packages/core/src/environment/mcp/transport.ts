/**
 * One SDK transport per server entry, chosen by its `transport`: a child process for
 * stdio, Streamable HTTP for `http`, and the legacy HTTP+SSE transport only for an entry
 * that says `sse` (SPEC §4). A stdio server is planned by stdio-launch.ts (the host's policy,
 * the session's sandbox) before anything is spawned. Configured `headers` go on every request, the SSE stream's
 * GET included. Creating a transport does no I/O; `Client.connect` starts it.
 *
 * `stopTransport` is the matching shutdown: for stdio it escalates to signals (stdio.ts),
 * straight to SIGTERM for a server that failed; for Streamable HTTP it first ends the
 * server-side session when the server gave one. Every wait is bounded by the grace.
 */
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "./config.js";
import type { CommandSandbox } from "../commands/sandbox.js";
import { StdioProcess, stopStdioProcess, type StderrMode } from "./stdio.js";
import { planStdioLaunch, type McpStdioPolicy } from "./stdio-launch.js";

export interface TransportOptions {
  /** Working directory for stdio servers without their own `cwd` (and base for a relative one). */
  baseCwd?: string;
  stderr: StderrMode;
  /** Stdio servers run inside this sandbox (the session's); none: on the host. */
  sandbox?: CommandSandbox;
  /** The host's rule for which stdio servers may start (stdio-launch.ts). */
  stdioPolicy?: McpStdioPolicy;
}

/** After SIGTERM, how long a server that failed to connect may take before SIGKILL (at most). */
const FAILED_KILL_AFTER_MS = 500;

export type OpenTransport =
  | { kind: "stdio"; transport: Transport; child: StdioProcess }
  | { kind: "http"; transport: Transport; http: StreamableHTTPClientTransport }
  | { kind: "sse"; transport: Transport };

/** Throws (McpStdioLaunchError) for a stdio server the policy refuses: nothing is spawned then. */
export function createTransport(server: string, config: McpServerConfig, options: TransportOptions): OpenTransport {
  switch (config.transport) {
    case undefined:
    case "stdio": {
      const launch = planStdioLaunch(server, config, {
        ...(options.baseCwd !== undefined ? { baseCwd: options.baseCwd } : {}),
        ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
        ...(options.stdioPolicy !== undefined ? { policy: options.stdioPolicy } : {}),
      });
      const child = new StdioProcess(launch, { stderr: options.stderr });
      return { kind: "stdio", transport: child, child };
    }
    case "http": {
      const http = new StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers !== undefined ? { requestInit: { headers: config.headers } } : {}),
      });
      return { kind: "http", transport: http, http };
    }
    case "sse": {
      const sse = new SSEClientTransport(new URL(config.url), {
        ...(config.headers !== undefined ? { requestInit: { headers: config.headers } } : {}),
      });
      return { kind: "sse", transport: sse };
    }
  }
}

function within(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([settled, limit]).finally(() => clearTimeout(timer));
}

/**
 * Closes the connection through `closeClient` (the Client's close, which closes the
 * transport) and makes sure nothing is left running. Never rejects.
 */
export async function stopTransport(
  open: OpenTransport,
  closeClient: () => Promise<void>,
  how: { graceMs: number; failed: boolean },
): Promise<void> {
  const graceMs = how.graceMs;
  switch (open.kind) {
    case "stdio":
      // A server that failed gets SIGTERM at once; a healthy one the full grace first.
      await stopStdioProcess(open.child, closeClient, {
        termAfterMs: how.failed ? 0 : graceMs,
        killAfterMs: how.failed ? Math.min(graceMs, FAILED_KILL_AFTER_MS) : graceMs,
      });
      return;
    case "http":
      if (open.http.sessionId !== undefined) await within(graceMs, open.http.terminateSession());
      await within(graceMs, closeClient());
      return;
    case "sse":
      await within(graceMs, closeClient());
      return;
  }
}
