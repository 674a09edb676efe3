/**
 * `GET A/tools`: the agent's tools for the Agents page's Tools tab: the builtin tools a
 * session of this agent gets (name, description, permission, timeout, parameters) and the
 * configured MCP servers and hooks (services/tool-catalog.ts). Reading only; members may see it.
 */
import { parseSystemConfig } from "@penguin/core";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { readTextOr } from "../services/agent-config-file.js";
import { builtinTools, configuredHooks, mcpServers } from "../services/tool-catalog.js";
import { AgentTools } from "../contract/index.js";

export function agentToolRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/tools", operationId: "agentTools.list", summary: "Builtin tools and MCP servers of the agent", tag: "agents", access: "agent", responses: { 200: { description: "{builtin: [{name, description, permission, timeoutMs, parameters, condition?}], mcp: [{name, transport, permission, command?, args?, url?, envKeys, headerKeys}], hooks: [{event, matcher?, command, timeoutSeconds?}]}", schema: AgentTools } } },
    async ({ grant }) => {
      const config = parseSystemConfig(await readTextOr(grant.agent.systemConfig), grant.agent.systemConfig);
      return json({ builtin: builtinTools(grant.agent, config), mcp: mcpServers(config), hooks: configuredHooks(config) });
    },
  );
}
