/**
 * Agent configuration: `agent_state/system_config.yaml` and `AGENTS.md`, as text.
 *
 * A write is validated with core's `parseSystemConfig` first (a broken file is refused with
 * core's message naming the line and field) and then saved exactly as sent, so the user's
 * comments and layout survive. The owner writes (the YAML can start MCP server processes);
 * members read. `reset` restores both files to core's defaults. The MCP probe and the
 * lossless kernel update are not implemented (501).
 */
import { rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { ensureAgentState, parseSystemConfig } from "@penguin/core";
import { z } from "zod";
import { notImplemented } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { writeTextAtomic } from "../services/files.js";

const ConfigView = z.object({ systemConfig: z.string(), agentsMd: z.string() });

async function readOr(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return "";
  }
}

export function agentConfigRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/config", operationId: "agentConfig.get", summary: "system_config.yaml and AGENTS.md, as text", tag: "agents", access: "agent", responses: { 200: { description: "Config", schema: ConfigView } } },
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
      body: z.object({ systemConfig: z.string().max(2_000_000).optional(), agentsMd: z.string().max(2_000_000).optional() }),
      maxBodyBytes: 5 * 1024 * 1024,
      responses: { 200: { description: "Saved", schema: ConfigView } },
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
    { method: "post", path: "/api/projects/:p/agents/:a/config/reset", operationId: "agentConfig.reset", summary: "Restore the default system_config.yaml and AGENTS.md", tag: "agents", access: "agent", need: "owner", responses: { 200: { description: "The restored config", schema: ConfigView } } },
    async ({ grant }) => {
      rmSync(grant.agent.systemConfig, { force: true });
      rmSync(grant.agent.agentsMd, { force: true });
      await ensureAgentState(grant.agent);
      return json({ systemConfig: await readOr(grant.agent.systemConfig), agentsMd: await readOr(grant.agent.agentsMd) });
    },
  );

  for (const [action, feature] of [
    ["mcp-test", "the MCP connection probe"],
    ["kernel-update", "the lossless default-config merge"],
  ] as const) {
    table.add(
      { method: "post", path: `/api/projects/:p/agents/:a/config/${action}`, operationId: `agentConfig.${action === "mcp-test" ? "mcpTest" : "kernelUpdate"}`, summary: `${feature} (not implemented)`, tag: "agents", access: "agent", need: "owner", responses: { 501: { description: "Not implemented" } } },
      () => {
        throw notImplemented(feature);
      },
    );
  }

}
