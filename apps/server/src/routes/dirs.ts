/**
 * `GET /api/projects/:p/dirs?path=`: the server's directory browser for the workspace
 * picker, confined to the places a workspace may lie (services/workspace-roots.ts): the
 * configured workspace roots and the project's agents' `workspaces/` folders. Without a
 * path it starts at the first root; `roots` lists them all so the picker can offer each.
 * Lists sub-directories only (names, never file contents); hidden folders are listed last.
 * `parent` is null at a root, so the picker cannot climb out of one.
 */
import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { agentPaths } from "@penguin/core";
import { Schema } from "effect";
import { notFound } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { isInside } from "../services/confined-path.js";
import { DirListing } from "../contract/index.js";

export function dirsRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/api/projects/:p/dirs",
      operationId: "dirs.list",
      summary: "Sub-directories of a folder under the workspace roots (workspace picker)",
      tag: "projects",
      access: "project",
      query: Schema.Struct({ path: Schema.optional(Schema.String) }),
      responses: { 200: { description: "{path, parent, dirs: [name], roots: [path]}", schema: DirListing } },
    },
    ({ grant, query }) => {
      const projectId = grant.project.projectId;
      const agentDirs = ctx.stores.projects.agents(projectId).map((a) => agentPaths(ctx.root, projectId, a.agentId).workspacesDir);
      const roots = ctx.workspaces.roots(agentDirs);
      const requested = query.path === undefined || query.path === "" ? roots[0] : query.path;
      if (requested === undefined) throw notFound("workspace root");
      const isRoot = roots.includes(requested);
      const abs = isRoot ? requested : ctx.workspaces.confine(requested, agentDirs, "path");
      let dirs: string[];
      try {
        dirs = readdirSync(abs, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
          .sort((a, b) => Number(a.startsWith(".")) - Number(b.startsWith(".")) || a.localeCompare(b));
      } catch {
        throw notFound(`directory ${abs}`);
      }
      const up = dirname(abs);
      const parent = isRoot || up === abs || !roots.some((r) => isInside(r, up)) ? null : up;
      return json({ path: abs, parent, dirs, roots });
    },
  );
}
