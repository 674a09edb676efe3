/**
 * Agent vault (`agent_state/.vault.toml`): secrets that reach only tool subprocesses. Values
 * are masked on the way out; a full replace keeps a value whose masked form (or null) comes
 * back unchanged, so a client can edit names and add secrets without ever holding the old
 * ones. Owner only for writes; sessions are reloaded so new values reach their tools.
 * `template-placeholder` appends `{{VAULT}}` to the system prompt when it lacks it (409
 * `placeholder_present` otherwise), keeping the file's comments.
 */
import { readVault, writeVault } from "@penguin/core";
import { Schema } from "effect";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { insertPlaceholder } from "../services/agent-config-file.js";
import { maskKey } from "../services/model-table.js";
import { SystemConfigText } from "../contract/index.js";
import { VaultView } from "../contract/index.js";


export function vaultRoutes(table: RouteTable, ctx: ServerContext): void {
  const view = (values: Record<string, string>) => ({ entries: Object.keys(values).sort().map((name) => ({ name, value: maskKey(values[name]) ?? "" })) });

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/vault", operationId: "vault.get", summary: "Vault entries (values masked)", tag: "vault", access: "agent", responses: { 200: { description: "Entries", schema: VaultView } } },
    async ({ grant }) => json(view(await readVault(grant.agent.vault))),
  );

  table.add(
    {
      method: "put",
      path: "/api/projects/:p/agents/:a/vault",
      operationId: "vault.put",
      summary: "Replace the vault; null or the masked value keeps a stored value",
      tag: "vault",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ values: Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.String) }) }),
      responses: { 200: { description: "Saved (masked)", schema: VaultView } },
    },
    async ({ grant, body }) => {
      const current = await readVault(grant.agent.vault);
      const next: Record<string, string> = {};
      for (const [name, value] of Object.entries(body.values)) {
        const old = current[name];
        const keep = value === null || (old !== undefined && value === maskKey(old));
        if (keep && old !== undefined) next[name] = old;
        else if (value !== null) next[name] = value;
      }
      await writeVault(grant.agent.vault, next);
      ctx.sessions.invalidateProject(grant.project.projectId);
      return json(view(next));
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/agents/:a/vault/template-placeholder",
      operationId: "vault.templatePlaceholder",
      summary: "Append {{VAULT}} to the system prompt",
      tag: "vault",
      access: "agent",
      need: "owner",
      responses: { 200: { description: "{systemConfig}", schema: SystemConfigText }, 409: { description: "placeholder_present" } },
    },
    async ({ grant }) => json({ systemConfig: await insertPlaceholder(grant.agent, "{{VAULT}}") }),
  );
}
