/**
 * Agent State snapshots (services/snapshots.ts): `GET A/export` saves
 * `snapshots/v<version>.tar.gz` (agent_state/ without the vault) and downloads it;
 * `GET A/snapshots` lists the saved ones; `POST A/import {dataBase64, confirm?}` replaces the
 * agent's state with an archive's, after saving the current one, keeping the current vault,
 * and asking for `confirm` when the archive's version is not newer (409 `confirm_required`).
 * Import is refused while a session of the agent runs, and reloads its idle sessions.
 * Members may export; only the owner imports.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Schema } from "effect";
import { Text } from "../http/schemas.js";
import { conflict } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { importSnapshot, saveSnapshot, SNAPSHOT_IMPORT_MAX, snapshotName, stateVersion } from "../services/snapshots.js";
import { SnapshotImported, SnapshotList } from "../contract/index.js";

export function snapshotRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/export", operationId: "snapshots.export", summary: "Save and download a snapshot of Agent State (v<version>.tar.gz, no vault)", tag: "snapshots", access: "agent", responses: { 200: { description: "The tar.gz", contentType: "application/gzip" } } },
    async ({ grant }) => {
      const { file, version } = await saveSnapshot(grant.agent);
      return new Response(readFileSync(file), {
        status: 200,
        headers: { "content-type": "application/gzip", "content-disposition": `attachment; filename="${snapshotName(version)}"`, "x-content-type-options": "nosniff", "cache-control": "no-store" },
      });
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/snapshots", operationId: "snapshots.list", summary: "Saved snapshots and the current version", tag: "snapshots", access: "agent", responses: { 200: { description: "{version, snapshots: [{name, size, mtimeMs}]}", schema: SnapshotList } } },
    ({ grant }) => {
      let names: string[] = [];
      try {
        names = readdirSync(grant.agent.snapshotsDir).filter((n) => /^v\d+\.tar\.gz$/.test(n));
      } catch {
        names = [];
      }
      const snapshots = names
        .map((name) => {
          const st = statSync(join(grant.agent.snapshotsDir, name));
          return { name, version: Number(/^v(\d+)/.exec(name)?.[1] ?? "0"), size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
        })
        .sort((a, b) => b.version - a.version);
      return json({ version: stateVersion(grant.agent.agentState) ?? null, snapshots });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/agents/:a/import",
      operationId: "snapshots.import",
      summary: "Replace Agent State with a snapshot (current state saved first, vault kept)",
      tag: "snapshots",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ dataBase64: Text(1), confirm: Schema.optional(Schema.Boolean) }),
      maxBodyBytes: Math.ceil(SNAPSHOT_IMPORT_MAX * 1.4) + 4096,
      responses: { 200: { description: "{version, previousVersion, snapshot}", schema: SnapshotImported }, 409: { description: "confirm_required, or task_in_progress while a session of the agent runs" } },
    },
    async ({ grant, body }) => {
      if (ctx.sessions.anyBusy(grant.project.projectId, grant.agent.agentId)) throw conflict("task_in_progress", "a session of this agent is running; wait for it or stop it before importing");
      const outcome = await importSnapshot(grant.agent, ctx.workspaces, Buffer.from(body.dataBase64, "base64"), body.confirm === true);
      ctx.sessions.invalidateProject(grant.project.projectId);
      return json({ version: outcome.version, previousVersion: outcome.previousVersion ?? null, snapshot: outcome.snapshot ?? null });
    },
  );
}
