/**
 * The MCP tool catalog: what the model sees of each discovered tool (a ToolDefinition under
 * its exposed name), the permission read-only approval mode consults, and the way back to
 * the server and the server's own tool name.
 *
 * Built once from the servers that connected, in config order and each server's listing
 * order, then frozen: `tools/list_changed` is ignored for the life of the hub (SPEC §4:
 * the tool set is frozen per session). Pure, so naming and permission rules test alone.
 */
import type { ToolDefinition } from "@penguin/omnimessage";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolPermission } from "../../interfaces.js";
import type { McpPermissionSetting } from "./config.js";
import { exposedToolName } from "./tool-names.js";

export interface McpToolEntry {
  readonly definition: ToolDefinition;
  readonly permission: ToolPermission;
  /** The configured server name. */
  readonly server: string;
  /** The tool's name on its server, sent back in `tools/call`. */
  readonly serverToolName: string;
}

/** One connected server's contribution to the catalog. */
export interface DiscoveredServer {
  name: string;
  permission?: McpPermissionSetting;
  tools: readonly Tool[];
}

/**
 * `r` or `rw` in the config wins for every tool; `auto` (the default) trusts only an
 * explicit `readOnlyHint: true`, since annotations are hints and `rw` is the safe side.
 */
export function resolvePermission(setting: McpPermissionSetting | undefined, tool: Tool): ToolPermission {
  if (setting === "r" || setting === "rw") return setting;
  return tool.annotations?.readOnlyHint === true ? "r" : "rw";
}

function describe(server: string, tool: Tool): string {
  const text = tool.description ?? tool.title ?? tool.annotations?.title;
  return text !== undefined && text.trim() !== "" ? text : `Tool "${tool.name}" of MCP server "${server}".`;
}

/** Builds the frozen catalog. A tool a server lists twice keeps its first listing. */
export function buildCatalog(servers: readonly DiscoveredServer[]): readonly McpToolEntry[] {
  const taken = new Set<string>();
  const entries: McpToolEntry[] = [];
  for (const server of servers) {
    const seenOnServer = new Set<string>();
    for (const tool of server.tools) {
      if (seenOnServer.has(tool.name)) continue;
      seenOnServer.add(tool.name);
      const name = exposedToolName(server.name, tool.name, taken);
      taken.add(name);
      const definition: ToolDefinition = {
        name,
        description: describe(server.name, tool),
        parameters: { ...tool.inputSchema },
      };
      entries.push(
        Object.freeze({
          definition: Object.freeze(definition),
          permission: resolvePermission(server.permission, tool),
          server: server.name,
          serverToolName: tool.name,
        }),
      );
    }
  }
  return Object.freeze(entries);
}
