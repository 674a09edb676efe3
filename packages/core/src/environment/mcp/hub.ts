/**
 * McpHub: the MCP client as the Environment sees it. A thin stateful shell over the pure
 * parts (config, catalog, result mapping) and one connect per server (connect.ts).
 *
 * Lifecycle, as a closed set of phases:
 *   idle ──connect()──▶ connecting ──▶ ready ──close()──▶ closed
 *                          └─ aborted ─▶ idle (the next connect() tries again)
 * - `connect()` yields `mcp_connect_begin{servers}`, connects every server in parallel
 *   (each bounded by its own connectTimeoutMs), then yields `mcp_connect_end` with one
 *   result per server in config order. Status `completed` when every server connected,
 *   `failed` when any did not (the others still work), `aborted` when the signal fired
 *   (nothing is kept, results are empty). It runs once: later calls yield nothing, and so
 *   does a hub with no servers (no MCP events for sessions without MCP).
 * - `tools()` is frozen from then on (`tools/list_changed` is ignored, SPEC §4).
 * - `call()` never throws: unknown names, bad arguments, failed or lost servers and
 *   aborts come back as `isError` results with a message the model can act on. The
 *   caller's signal is the only clock for a call (no SDK request timeout).
 * - `close()` closes every client and stops every stdio child, even mid-connect.
 * - Stdio servers start inside the `sandbox` when one is given, and only when the host's
 *   `stdioPolicy` lets them (stdio-launch.ts); a refused one is a failed server, never spawned.
 */
import {
  mcpConnectBegin,
  mcpConnectEnd,
  type McpServerResult,
  type OmniMessage,
  type ToolDefinition,
} from "@penguin/omnimessage";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolPermission } from "../../interfaces.js";
import { buildCatalog, type McpToolEntry } from "./catalog.js";
import { DEFAULT_CONNECT_TIMEOUT_MS, MAX_TIMER_MS, transportOf, type McpServerEntry } from "./config.js";
import { connectServer, describeError, type ConnectOutcome, type ConnectSettings, type ServerLink } from "./connect.js";
import { errorResult, mapCallResult, type McpCallResult } from "./result-mapping.js";
import type { CommandSandbox } from "../commands/sandbox.js";
import type { StderrMode } from "./stdio.js";
import type { McpStdioPolicy } from "./stdio-launch.js";
import { serverToolPrefix } from "./tool-names.js";

/** Sent in the MCP handshake; informational only (servers may log it). */
const CLIENT_VERSION = "0.1.0";
const DEFAULT_CLIENT_NAME = "penguin-harness";
/** How long a stdio server gets to exit after stdin closes, and again after SIGTERM. */
const DEFAULT_CLOSE_GRACE_MS = 2000;

export interface McpHubOptions {
  /** Per-server connect budget when an entry sets none. Default 10000. */
  connectTimeoutMs?: number;
  /** Client name sent in the handshake. Default "penguin-harness". */
  clientName?: string;
  /** A stdio server's stderr: `pipe` (default) keeps a tail for error messages, `ignore` drops it. Never printed. */
  stderr?: StderrMode;
  /** Working directory for stdio servers without `cwd` (and the base of a relative one). Default: ours. */
  cwd?: string;
  /** Grace a stopping stdio server gets before SIGTERM, and again before SIGKILL. Default 2000. */
  closeGraceMs?: number;
  /** Start stdio servers inside this sandbox (the session's, as its commands); none: on the host. */
  sandbox?: CommandSandbox;
  /** The host's rule for which stdio servers may start; a refused one fails to connect with its reason. */
  stdioPolicy?: McpStdioPolicy;
}

export interface McpTool {
  definition: ToolDefinition;
  permission: ToolPermission;
}

interface ReadyState {
  phase: "ready";
  links: ReadonlyMap<string, ServerLink>;
  /** Servers that did not connect, with the reason. */
  failures: ReadonlyMap<string, string>;
  catalog: readonly McpToolEntry[];
  byName: ReadonlyMap<string, McpToolEntry>;
}

type HubState =
  | { phase: "idle" }
  | { phase: "connecting"; abort: AbortController; work?: Promise<unknown> }
  | ReadyState
  | { phase: "closed" };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The model's JSON arguments as an object, or the reason they are not one. */
export function parseToolArguments(
  json: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (json.trim() === "") return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return { ok: false, error: `the arguments are not valid JSON (${describeError(error)})` };
  }
  if (!isRecord(parsed)) return { ok: false, error: "the arguments must be a JSON object" };
  return { ok: true, value: parsed };
}

function toResult(entry: McpServerEntry, outcome: ConnectOutcome, tools: readonly McpToolEntry[]): McpServerResult {
  const base = { server: entry.name, transport: transportOf(entry.config), duration_ms: outcome.durationMs };
  if (outcome.status === "failed") return { ...base, status: "failed", error: outcome.error };
  return {
    ...base,
    status: "connected",
    tools: tools.filter((t) => t.server === entry.name).map((t) => t.definition.name),
  };
}

function checkMs(option: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= MAX_TIMER_MS)) {
    throw new RangeError(`McpHub: ${option} must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${value}.`);
  }
}

export class McpHub {
  private state: HubState = { phase: "idle" };
  private readonly servers: readonly McpServerEntry[];
  private readonly settings: ConnectSettings;

  /** Throws (a programmer error) on repeated server names or a timeout setTimeout cannot hold. */
  constructor(servers: McpServerEntry[], options: McpHubOptions = {}) {
    const names = new Set<string>();
    for (const server of servers) {
      if (names.has(server.name)) {
        throw new Error(`McpHub: two servers are named "${server.name}"; parseMcpServers rejects that, use it.`);
      }
      names.add(server.name);
    }
    checkMs("connectTimeoutMs", options.connectTimeoutMs);
    checkMs("closeGraceMs", options.closeGraceMs);
    this.servers = [...servers];
    this.settings = {
      clientName: options.clientName ?? DEFAULT_CLIENT_NAME,
      clientVersion: CLIENT_VERSION,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      closeGraceMs: options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
      transport: {
        stderr: options.stderr ?? "pipe",
        ...(options.cwd !== undefined ? { baseCwd: options.cwd } : {}),
        ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
        ...(options.stdioPolicy !== undefined ? { stdioPolicy: options.stdioPolicy } : {}),
      },
    };
  }

  /** Connects every server once; see the header for the events and their statuses. */
  async *connect(signal?: AbortSignal): AsyncGenerator<OmniMessage, void> {
    if (this.state.phase !== "idle" || this.servers.length === 0 || signal?.aborted) return;
    const connecting: HubState = { phase: "connecting", abort: new AbortController() };
    this.state = connecting;
    const onAbort = (): void => connecting.abort.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      yield mcpConnectBegin(this.servers.map((s) => s.name));
      if (this.state !== connecting) {
        // close() came while the consumer held the begin event.
        yield mcpConnectEnd("aborted", []);
        return;
      }
      const work = this.connectAll(connecting.abort.signal);
      connecting.work = work;
      yield await work;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // A consumer that stopped before the work began leaves nothing behind.
      if (this.state === connecting && connecting.work === undefined) this.state = { phase: "idle" };
    }
  }

  /** Does the connecting and settles the state; never depends on the consumer. */
  private async connectAll(signal: AbortSignal): Promise<OmniMessage> {
    const attempts = await Promise.all(
      this.servers.map(async (server) => ({ server, outcome: await connectServer(server, this.settings, signal) })),
    );
    if (signal.aborted) {
      await Promise.all(attempts.map(({ outcome }) => (outcome.status === "connected" ? outcome.link.close() : null)));
      if (this.state.phase !== "closed") this.state = { phase: "idle" };
      return mcpConnectEnd("aborted", []);
    }
    const links = new Map<string, ServerLink>();
    const failures = new Map<string, string>();
    for (const { server, outcome } of attempts) {
      if (outcome.status === "connected") links.set(server.name, outcome.link);
      else failures.set(server.name, outcome.error);
    }
    const catalog = buildCatalog(
      attempts.flatMap(({ server, outcome }) =>
        outcome.status === "connected"
          ? [{ name: server.name, permission: server.config.permission, tools: outcome.link.tools }]
          : [],
      ),
    );
    const byName = new Map(catalog.map((t) => [t.definition.name, t]));
    this.state = { phase: "ready", links, failures, catalog, byName };
    const results = attempts.map(({ server, outcome }) => toResult(server, outcome, catalog));
    return mcpConnectEnd(failures.size === 0 ? "completed" : "failed", results);
  }

  /** The discovered tools as `mcp__<server>__<tool>` definitions; empty before connect. */
  tools(): McpTool[] {
    if (this.state.phase !== "ready") return [];
    return this.state.catalog.map((t) => ({ definition: structuredClone(t.definition), permission: t.permission }));
  }

  /** Calls a tool by its exposed name; never throws (see the header). */
  async call(name: string, argumentsJson: string, signal?: AbortSignal): Promise<McpCallResult> {
    const state = this.state;
    if (state.phase === "closed") return errorResult(`MCP tool "${name}" is unavailable: the MCP client was closed.`);
    if (state.phase !== "ready") {
      return errorResult(`MCP tool "${name}" is unavailable: MCP servers are not connected yet.`);
    }
    const entry = state.byName.get(name);
    if (entry === undefined) return errorResult(this.unknownToolMessage(state, name));
    const args = parseToolArguments(argumentsJson);
    if (!args.ok) return errorResult(`MCP tool "${name}" was not called: ${args.error}.`);
    const link = state.links.get(entry.server);
    const lost = link?.lostReason();
    if (link === undefined || lost !== undefined) {
      const why = lost === undefined ? "" : ` (${lost})`;
      return errorResult(`MCP tool "${name}" is unavailable: server "${entry.server}" is gone${why}.`);
    }
    if (signal?.aborted) return errorResult(`MCP tool "${name}" was not called: aborted.`);
    try {
      const result = await link.client.request(
        { method: "tools/call", params: { name: entry.serverToolName, arguments: args.value } },
        CallToolResultSchema,
        { timeout: MAX_TIMER_MS, ...(signal !== undefined ? { signal } : {}) },
      );
      return mapCallResult(result);
    } catch (error) {
      if (signal?.aborted) return errorResult(`MCP tool "${name}" was aborted.`);
      const why = describeError(error);
      return errorResult(`MCP tool "${entry.serverToolName}" on server "${entry.server}" failed: ${why}`);
    }
  }

  private unknownToolMessage(state: ReadyState, name: string): string {
    for (const [server, error] of state.failures) {
      if (name.startsWith(serverToolPrefix(server))) {
        return `MCP tool "${name}" is unavailable: server "${server}" failed to connect (${error}).`;
      }
    }
    return `Unknown MCP tool "${name}".`;
  }

  /** Closes every client and stops every stdio child; safe to call more than once. */
  async close(): Promise<void> {
    const state = this.state;
    this.state = { phase: "closed" };
    switch (state.phase) {
      case "idle":
      case "closed":
        return;
      case "connecting":
        state.abort.abort();
        await state.work;
        return;
      case "ready":
        await Promise.all([...state.links.values()].map((link) => link.close()));
        return;
    }
  }
}
