/**
 * Agent configuration: `agent_state/system_config.yaml` and `AGENTS.md`, as text.
 *
 * A write is validated with core's `parseSystemConfig` first (a broken file is refused with
 * core's message naming the line and field) and then saved exactly as sent, so the user's
 * comments and layout survive. The owner writes (the YAML can start MCP server processes);
 * members read. The edits the server makes itself go through services/config-yaml.ts, which
 * keeps comments: the kernel update (missing keys filled from the current defaults), the
 * thinking level picked in the web's draft, and `reset` (core's defaults for both files,
 * keeping name, description and version). `mcp-test` connects one MCP server the way a
 * session would (in a session's sandbox, under the server's stdio policy) and reports what it
 * offers; a stdio command the admin's list does not allow is a 403 and never runs.
 */
import { rmSync } from "node:fs";
import { ensureAgentState, parseSystemConfig } from "@penguin/core";
import { Schema } from "effect";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { Capped, Matching, ThinkingLevelSchema } from "../http/schemas.js";
import { readTextOr, saveSystemConfig } from "../services/agent-config-file.js";
import { defaultsKeepingIdentity, mergeKernelDefaults, setThinkingLevel } from "../services/config-yaml.js";
import { writeTextAtomic } from "../services/files.js";
import { probeMcpServer } from "../services/mcp-probe.js";
import { serverMcpStdioPolicy } from "../services/mcp-stdio-policy.js";
import { readServerSettings } from "../services/server-settings.js";
import type { ServerContext } from "../server-context.js";
import { AgentThinkingLevel, AgentThinkingLevelSaved, KernelUpdate, McpTestResult } from "../contract/index.js";
import { AgentConfigText } from "../contract/index.js";


const readOr = (file: string) => readTextOr(file);

export function agentConfigRoutes(table: RouteTable, ctx: ServerContext): void {
  const stdioPolicy = serverMcpStdioPolicy(() => readServerSettings(ctx.stores.settings), ctx.sandbox);
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/config", operationId: "agentConfig.get", summary: "system_config.yaml and AGENTS.md, as text", tag: "agents", access: "agent", responses: { 200: { description: "Config", schema: AgentConfigText } } },
    async ({ grant }) => json({ systemConfig: await readOr(grant.agent.systemConfig), agentsMd: await readOr(grant.agent.agentsMd) }),
  );

  table.add(
    {
      method: "put",
      path: "/api/projects/:p/agents/:a/config",
      operationId: "agentConfig.put",
      summary: "Save system_config.yaml and/or AGENTS.md (validated, written as given)",
      tag: "agents",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ systemConfig: Schema.optional(Capped(2_000_000)), agentsMd: Schema.optional(Capped(2_000_000)) }),
      maxBodyBytes: 5 * 1024 * 1024,
      responses: { 200: { description: "Saved", schema: AgentConfigText } },
    },
    async ({ grant, body }) => {
      if (body.systemConfig !== undefined) {
        parseSystemConfig(body.systemConfig, grant.agent.systemConfig);
        writeTextAtomic(grant.agent.systemConfig, body.systemConfig);
      }
      if (body.agentsMd !== undefined) writeTextAtomic(grant.agent.agentsMd, body.agentsMd);
      return json({ systemConfig: await readOr(grant.agent.systemConfig), agentsMd: await readOr(grant.agent.agentsMd) });
    },
  );

  table.add(
    { method: "post", path: "/api/projects/:p/agents/:a/config/reset", operationId: "agentConfig.reset", summary: "Restore the default system_config.yaml and AGENTS.md (name, description and version kept)", tag: "agents", access: "agent", need: "owner", responses: { 200: { description: "The restored config", schema: AgentConfigText } } },
    async ({ grant }) => {
      const old = await readOr(grant.agent.systemConfig);
      rmSync(grant.agent.agentsMd, { force: true });
      await ensureAgentState(grant.agent);
      saveSystemConfig(grant.agent, defaultsKeepingIdentity(old === "" ? undefined : old, grant.agent.agentId));
      return json({ systemConfig: await readOr(grant.agent.systemConfig), agentsMd: await readOr(grant.agent.agentsMd) });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/agents/:a/config/kernel-update",
      operationId: "agentConfig.kernelUpdate",
      summary: "Fill keys missing from system_config.yaml with the current defaults (present keys and comments kept)",
      tag: "agents",
      access: "agent",
      need: "owner",
      responses: { 200: { description: "{added: [dotted keys], kernelVersion: {from, to}, systemConfig}", schema: KernelUpdate } },
    },
    async ({ grant }) => {
      const merged = mergeKernelDefaults(await readOr(grant.agent.systemConfig), grant.agent.agentId);
      if (merged.added.length > 0 || merged.kernelVersion.from !== merged.kernelVersion.to) saveSystemConfig(grant.agent, merged.text);
      return json({ added: merged.added, kernelVersion: merged.kernelVersion, systemConfig: await readOr(grant.agent.systemConfig) });
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/config/thinking-level", operationId: "agentConfig.getThinkingLevel", summary: "The agent's model.thinking_level (its default for new sessions)", tag: "agents", access: "agent", responses: { 200: { description: "{thinkingLevel}", schema: AgentThinkingLevel } } },
    async ({ grant }) => json({ thinkingLevel: parseSystemConfig(await readOr(grant.agent.systemConfig), grant.agent.systemConfig).model.thinking_level }),
  );

  table.add(
    {
      method: "put",
      path: "/api/projects/:p/agents/:a/config/thinking-level",
      operationId: "agentConfig.thinkingLevel",
      summary: "Set model.thinking_level in system_config.yaml (comments kept)",
      tag: "agents",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ thinkingLevel: ThinkingLevelSchema }),
      responses: { 200: { description: "{thinkingLevel, systemConfig}", schema: AgentThinkingLevelSaved } },
    },
    async ({ grant, body }) => {
      saveSystemConfig(grant.agent, setThinkingLevel(await readOr(grant.agent.systemConfig), body.thinkingLevel));
      return json({ thinkingLevel: body.thinkingLevel, systemConfig: await readOr(grant.agent.systemConfig) });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/agents/:a/config/mcp-test",
      operationId: "agentConfig.mcpTest",
      summary: "Connect one MCP server as a session would, list its tools, disconnect",
      tag: "agents",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ name: Matching(/^[A-Za-z0-9_-]{1,64}$/, "must use only letters, digits, _ and -"), config: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
      responses: { 200: { description: "{ok, transport, durationMs, tools: [{name, description, permission}], error?}", schema: McpTestResult }, 403: { description: "mcp_command_not_allowed: the stdio command is not on the server's list (or stdio servers are off without a sandbox)" } },
    },
    async ({ grant, body, c }) =>
      json(
        await probeMcpServer(body.name, body.config, {
          agent: grant.agent,
          sandbox: ctx.sandbox.enabled ? { enabled: true, network: ctx.sandbox.network } : undefined,
          ...(ctx.sandbox.bwrapPath === undefined ? {} : { bwrapPath: ctx.sandbox.bwrapPath }),
          stdioPolicy,
          signal: c.signal,
        }),
      ),
  );
}
