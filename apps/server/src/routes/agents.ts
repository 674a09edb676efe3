/**
 * Agents resource (`/api/projects/:p/agents`): the agents of a project as found on disk
 * (an agent is its folder; the index only adds a display name and description), creating
 * one (its agent_state with defaults, through core) and deleting one with all its files
 * (not `default_agent`, not while one of its sessions runs).
 */
import { agentPaths, createAgent, DEFAULT_AGENT } from "@penguin/core";
import { existsSync, rmSync } from "node:fs";
import { Schema } from "effect";
import { conflict } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { AgentId, Capped } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { agentIdsOnDisk } from "../services/trace-files.js";
import { AgentList, AgentView } from "../contract/index.js";


export function agentRoutes(table: RouteTable, ctx: ServerContext): void {
  const { stores } = ctx;

  table.add(
    { method: "get", path: "/api/projects/:p/agents", operationId: "agents.list", summary: "The project's agents", tag: "agents", access: "project", responses: { 200: { description: "Agents", schema: AgentList } } },
    ({ grant }) => {
      const rows = new Map(stores.projects.agents(grant.project.projectId).map((a) => [a.agentId, a]));
      const agents = agentIdsOnDisk(grant.paths).map((agentId) => {
        const row = rows.get(agentId);
        return { agentId, name: row?.name ?? null, description: row?.description ?? null, createdAt: row?.createdAt ?? null };
      });
      return json({ agents });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/agents",
      operationId: "agents.create",
      summary: "Create an agent with default agent_state",
      tag: "agents",
      access: "project",
      need: "owner",
      body: Schema.Struct({ agentId: AgentId, name: Schema.optional(Capped(200)), description: Schema.optional(Capped(2000)) }),
      responses: { 201: { description: "Created", schema: AgentView }, 409: { description: "The id is taken" } },
    },
    async ({ grant, body }) => {
      const projectId = grant.project.projectId;
      if (existsSync(agentPaths(ctx.root, projectId, body.agentId).agentDir)) throw conflict("already_exists", `agent ${body.agentId} already exists`);
      await createAgent({ root: ctx.root, projectId, agentId: body.agentId, env: {} });
      const row = { agentId: body.agentId, name: body.name ?? null, description: body.description ?? null, createdAt: ctx.now() };
      stores.projects.insertAgent(projectId, row);
      return json(row, 201);
    },
  );

  table.add(
    { method: "delete", path: "/api/projects/:p/agents/:a", operationId: "agents.delete", summary: "Delete an agent and all its files", tag: "agents", access: "agent", need: "owner", responses: { 204: { description: "Deleted" }, 409: { description: "default_agent, or a session is running" } } },
    async ({ grant }) => {
      const { projectId } = grant.project;
      const { agentId } = grant.agent;
      if (agentId === DEFAULT_AGENT) throw conflict("protected", "default_agent cannot be deleted");
      if (ctx.sessions.anyBusy(projectId, agentId)) throw conflict("task_in_progress", "a session of this agent is running; abort it first");
      await ctx.sessions.dropAll(projectId, agentId);
      for (const id of stores.sessions.idsInProject(projectId)) if (stores.sessions.get(id)?.agentId === agentId) stores.sessions.delete(id);
      stores.projects.deleteAgent(projectId, agentId);
      rmSync(grant.agent.agentDir, { recursive: true, force: true });
      return noContent();
    },
  );
}
