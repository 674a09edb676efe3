/**
 * Loads the MCP client only when a session has MCP servers configured.
 *
 * The MCP SDK is the heaviest module core depends on (about a quarter second to import on
 * a loaded machine); most sessions configure no MCP server, and `penguin run` start-up is a
 * measured figure, so the hub module is imported on demand rather than at the top of agent.ts.
 */
import type { McpServerEntry } from "./config.js";
import type { McpHub, McpHubOptions } from "./hub.js";

export async function loadMcpHub(servers: McpServerEntry[], options?: McpHubOptions): Promise<McpHub> {
  const { McpHub: Hub } = await import("./hub.js");
  return new Hub(servers, options);
}
