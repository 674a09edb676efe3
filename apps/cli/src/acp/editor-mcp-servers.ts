/**
 * The MCP servers an editor sends with session/new, session/load and session/resume, as the
 * agent's own `tools.mcpServers` entries, so core starts them the same way: stdio servers inside
 * the session's sandbox (its one mount table), http and sse ones from this process, every tool
 * as `mcp__<name>__<tool>` for that session only. ACP's lists of `{name, value}` become maps, and
 * core's one parser (parseMcpServers) checks them, so a bad entry is refused with the field it is
 * wrong in (`InvalidEditorMcpServers`, answered as invalid params) before the session opens.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { McpServerEntry } from "@penguin/core";

export class InvalidEditorMcpServers extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidEditorMcpServers";
  }
}

/** Where a problem in the editor's list is said to be (parseMcpServers names it as a file). */
const SOURCE = "the editor's mcpServers";

function pairsToMap(pairs: readonly { name: string; value: string }[] | undefined): Record<string, string> | undefined {
  if (pairs === undefined || pairs.length === 0) return undefined;
  return Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]));
}

/** One ACP entry in the shape system_config.yaml gives (parseMcpServers' input). */
function asConfigured(server: acp.McpServer): { name: string; config: Record<string, unknown> } {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    const headers = pairsToMap(server.headers);
    return { name: server.name, config: { transport: server.type, url: server.url, ...(headers === undefined ? {} : { headers }) } };
  }
  const stdio = server as acp.McpServerStdio;
  const env = pairsToMap(stdio.env);
  return { name: stdio.name, config: { transport: "stdio", command: stdio.command, args: stdio.args ?? [], ...(env === undefined ? {} : { env }) } };
}

/** The editor's servers as core's entries; undefined when it sent none. Throws InvalidEditorMcpServers. */
export async function editorMcpServers(servers: readonly acp.McpServer[] | undefined): Promise<McpServerEntry[] | undefined> {
  if (servers === undefined || servers.length === 0) return undefined;
  const { parseMcpServers } = await import("@penguin/core");
  try {
    return parseMcpServers(servers.map(asConfigured), SOURCE);
  } catch (error) {
    throw new InvalidEditorMcpServers(error instanceof Error ? error.message : String(error));
  }
}
