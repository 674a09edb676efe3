/**
 * Project-level settings kept in `.project_config.toml` besides models: `[default_chat]`
 * (what a new chat starts with: agent, workspace, thinking level, and the approval mode of new
 * web sessions, `read-only` until the owner chooses another; the CLI's `chat` reads it too) and `[command_policy]` (the veto rules core applies before
 * any approval). Everyone in the project reads them; the owner writes them. A policy whose
 * pattern is not a regular expression is refused with core's message.
 */
import { agentPaths, checkCommandPolicy, FACTORY_RULES, readProjectConfig, writeProjectConfig, type DefaultChat } from "@penguin/core";
import { Schema } from "effect";
import { ApiError } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { AgentId, ApprovalModeSchema, Text, ThinkingLevelSchema } from "../http/schemas.js";
import { WEB_SESSION_DEFAULT_APPROVAL } from "../runtime/session-manager.js";
import type { ServerContext } from "../server-context.js";

const ChatDefaults = Schema.Struct({
  agentId: Schema.optional(AgentId),
  workspace: Schema.optional(Schema.String),
  approvalMode: Schema.optional(ApprovalModeSchema),
  thinkingLevel: Schema.optional(ThinkingLevelSchema),
});

const PolicyRule = Schema.Struct({ name: Text(1), pattern: Text(1), description: Schema.optional(Schema.String), enabled: Schema.optional(Schema.Boolean) });

const Policy = Schema.Struct({
  enabled: Schema.Boolean,
  rules: Schema.mutable(Schema.Array(Schema.mutable(PolicyRule)).pipe(Schema.maxItems(500))),
});

export function projectSettingsRoutes(table: RouteTable, ctx: ServerContext): void {
  const agentWorkspaceDirs = (projectId: string) => ctx.stores.projects.agents(projectId).map((a) => agentPaths(ctx.root, projectId, a.agentId).workspacesDir);

  table.add(
    { method: "get", path: "/api/projects/:p/chat-defaults", operationId: "chatDefaults.get", summary: "Defaults for new chats", tag: "projects", access: "project", responses: { 200: { description: "Defaults", schema: ChatDefaults } } },
    ({ grant }) => {
      const d = readProjectConfig(grant.paths.projectConfig).default_chat ?? {};
      // The approval mode a new web session gets when its request names none: the project's, else the server's default.
      return json({ agentId: d.agent_id, workspace: d.workspace, approvalMode: d.approval_mode ?? WEB_SESSION_DEFAULT_APPROVAL, thinkingLevel: d.thinking_level });
    },
  );

  table.add(
    { method: "put", path: "/api/projects/:p/chat-defaults", operationId: "chatDefaults.put", summary: "Replace the defaults for new chats", tag: "projects", access: "project", need: "owner", body: ChatDefaults, responses: { 200: { description: "Saved", schema: ChatDefaults } } },
    ({ grant, body }) => {
      const file = grant.paths.projectConfig;
      const d: DefaultChat = {};
      if (body.agentId !== undefined) d.agent_id = body.agentId;
      // Checked now as well as at session creation, so a default that can never be used is refused where it is set.
      if (body.workspace !== undefined) d.workspace = ctx.workspaces.confine(body.workspace, agentWorkspaceDirs(grant.project.projectId));
      if (body.approvalMode !== undefined) d.approval_mode = body.approvalMode;
      if (body.thinkingLevel !== undefined) d.thinking_level = body.thinkingLevel;
      writeProjectConfig(file, { ...readProjectConfig(file), default_chat: d });
      return json(body);
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/command-policy", operationId: "commandPolicy.get", summary: "The command policy (factory rules when unset)", tag: "projects", access: "project", responses: { 200: { description: "Policy", schema: Policy } } },
    ({ grant }) => json(readProjectConfig(grant.paths.projectConfig).command_policy ?? { enabled: true, rules: FACTORY_RULES }),
  );

  table.add(
    { method: "put", path: "/api/projects/:p/command-policy", operationId: "commandPolicy.put", summary: "Replace the command policy", tag: "projects", access: "project", need: "owner", body: Policy, responses: { 200: { description: "Saved", schema: Policy } } },
    ({ grant, body }) => {
      const problems = checkCommandPolicy(body);
      if (problems.length > 0) throw new ApiError(400, "invalid_config", problems.join("; "), { field: "rules" });
      const file = grant.paths.projectConfig;
      writeProjectConfig(file, { ...readProjectConfig(file), command_policy: body });
      ctx.sessions.invalidateProject(grant.project.projectId);
      return json(body);
    },
  );
}
