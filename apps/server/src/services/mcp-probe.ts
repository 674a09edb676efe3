/**
 * The MCP connection test behind `POST A/config/mcp-test`: one server entry, checked with
 * core's own parser (so the form and a session agree on what is valid), connected through
 * core's hub exactly as a session would (same transports, same discovery), reported, and
 * closed again whatever happened. The connect budget is short (default 8 s, the entry's
 * `connectTimeoutMs` when smaller) because a person is waiting on the answer.
 *
 * The answer is the hub's own `mcp_connect_end` result, renamed for JSON clients:
 * `{ok, transport, durationMs, tools: [{name, description, permission}], error?}`, tool names
 * as sessions expose them (`mcp__<server>__<tool>`).
 */
import { loadMcpHub, parseMcpServers } from "@penguin/core";
import { isEvent } from "@penguin/omnimessage";

export const MCP_PROBE_TIMEOUT_MS = 8_000;

export interface McpProbeResult {
  ok: boolean;
  transport: string;
  durationMs: number;
  /** As sessions will see them: `mcp__<server>__<tool>`, with the permission the approval modes use. */
  tools: { name: string; description: string; permission: "r" | "rw" }[];
  error?: string;
}

export async function probeMcpServer(name: string, config: Record<string, unknown>, options: { cwd: string; timeoutMs?: number; signal?: AbortSignal }): Promise<McpProbeResult> {
  const [entry] = parseMcpServers([{ name, config }], "the MCP server form");
  if (entry === undefined) throw new Error("parseMcpServers returned no entry for one server");
  const budget = Math.min(entry.config.connectTimeoutMs ?? Number.POSITIVE_INFINITY, options.timeoutMs ?? MCP_PROBE_TIMEOUT_MS);
  const hub = await loadMcpHub([{ ...entry, config: { ...entry.config, connectTimeoutMs: budget } }], { cwd: options.cwd, connectTimeoutMs: budget });
  try {
    for await (const m of hub.connect(options.signal)) {
      if (!isEvent(m, "mcp_connect_end")) continue;
      const result = m.payload.results[0];
      if (result === undefined) return { ok: false, transport: entry.config.transport ?? "stdio", durationMs: 0, tools: [], error: `connection ${m.payload.status}` };
      const tools = hub.tools().map((t) => ({ name: t.definition.name, description: t.definition.description, permission: t.permission }));
      const answer: McpProbeResult = { ok: result.status === "connected", transport: result.transport, durationMs: result.duration_ms, tools };
      if (result.error !== undefined) answer.error = result.error;
      return answer;
    }
    return { ok: false, transport: entry.config.transport ?? "stdio", durationMs: 0, tools: [], error: "the connection did not finish" };
  } finally {
    await hub.close();
  }
}
