/**
 * The MCP connection test behind `POST A/config/mcp-test`: one server entry, checked with
 * core's own parser (so the form and a session agree on what is valid), connected through
 * core's hub exactly as a session would (same transports, same discovery, the same sandbox
 * and the same stdio policy), reported, and closed again whatever happened. The connect budget
 * is short (default 8 s, the entry's `connectTimeoutMs` when smaller) because a person is
 * waiting on the answer.
 *
 * A stdio server runs as a session's would: inside the sandbox core builds for a session of
 * this agent (sessionCommandSandbox: a fresh temporary workspace under the agent's
 * `workspaces/`, removed afterwards, as its writable working directory; the data root and
 * the other workspaces hidden; network only when the server gives sessions the network), and
 * only if the server's stdio policy (services/mcp-stdio-policy.ts) lets it start. A refusal is
 * not a failed connection but a request the server will not carry out: it throws a 403
 * `mcp_command_not_allowed` whose message says who can allow it; nothing was spawned.
 *
 * The answer is the hub's own `mcp_connect_end` result, renamed for JSON clients:
 * `{ok, transport, durationMs, tools: [{name, description, permission}], error?}`, tool names
 * as sessions expose them (`mcp__<server>__<tool>`).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadMcpHub, parseMcpServers, sessionCommandSandbox, type AgentPaths, type McpStdioPolicy, type SandboxOptions } from "@penguin/core";
import { isEvent } from "@penguin/omnimessage";
import { ApiError } from "../http/api-error.js";

export const MCP_PROBE_TIMEOUT_MS = 8_000;

export interface McpProbeResult {
  ok: boolean;
  transport: string;
  durationMs: number;
  /** As sessions will see them: `mcp__<server>__<tool>`, with the permission the approval modes use. */
  tools: { name: string; description: string; permission: "r" | "rw" }[];
  error?: string;
}

export interface McpProbeOptions {
  /** The agent whose session the probe stands in for. */
  agent: AgentPaths;
  /** The sandbox sessions run in (the server's); undefined: none. */
  sandbox: SandboxOptions | undefined;
  bwrapPath?: string;
  /** Which stdio servers may start (the server's policy). */
  stdioPolicy: McpStdioPolicy;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export async function probeMcpServer(name: string, config: Record<string, unknown>, options: McpProbeOptions): Promise<McpProbeResult> {
  const [entry] = parseMcpServers([{ name, config }], "the MCP server form");
  if (entry === undefined) throw new Error("parseMcpServers returned no entry for one server");
  const budget = Math.min(entry.config.connectTimeoutMs ?? Number.POSITIVE_INFINITY, options.timeoutMs ?? MCP_PROBE_TIMEOUT_MS);
  mkdirSync(options.agent.workspacesDir, { recursive: true });
  const workspace = mkdtempSync(join(options.agent.workspacesDir, "tmp-mcp-probe-"));
  let refusal: string | undefined;
  let answer: McpProbeResult;
  try {
    const sandbox = sessionCommandSandbox(options.agent, options.sandbox, { workspace }, options.bwrapPath);
    const stdioPolicy: McpStdioPolicy = (request) => (refusal = options.stdioPolicy(request));
    const hub = await loadMcpHub([{ ...entry, config: { ...entry.config, connectTimeoutMs: budget } }], {
      cwd: workspace,
      connectTimeoutMs: budget,
      stdioPolicy,
      ...(sandbox === undefined ? {} : { sandbox }),
    });
    try {
      answer = await connectOnce(hub, entry.config.transport ?? "stdio", options.signal);
    } finally {
      await hub.close();
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  if (refusal !== undefined) throw new ApiError(403, "mcp_command_not_allowed", refusal, { field: "config.command" });
  return answer;
}

async function connectOnce(hub: Awaited<ReturnType<typeof loadMcpHub>>, transport: string, signal: AbortSignal | undefined): Promise<McpProbeResult> {
  for await (const m of hub.connect(signal)) {
    if (!isEvent(m, "mcp_connect_end")) continue;
    const result = m.payload.results[0];
    if (result === undefined) return { ok: false, transport, durationMs: 0, tools: [], error: `connection ${m.payload.status}` };
    const tools = hub.tools().map((t) => ({ name: t.definition.name, description: t.definition.description, permission: t.permission }));
    const answer: McpProbeResult = { ok: result.status === "connected", transport: result.transport, durationMs: result.duration_ms, tools };
    if (result.error !== undefined) answer.error = result.error;
    return answer;
  }
  return { ok: false, transport, durationMs: 0, tools: [], error: "the connection did not finish" };
}
