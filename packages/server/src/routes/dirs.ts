/**
 * `GET /api/projects/:p/dirs?path=`: the server's directory browser for the workspace
 * picker. Lists sub-directories only (names, never file contents), starting at the user's
 * home when no path is given. Hidden folders are listed last.
 */
import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { Schema } from "effect";
import { badRequest, notFound } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";

export function dirsRoutes(table: RouteTable): void {
  table.add(
    {
      method: "get",
      path: "/api/projects/:p/dirs",
      operationId: "dirs.list",
      summary: "Sub-directories of a server path (workspace picker)",
      tag: "projects",
      access: "project",
      query: Schema.Struct({ path: Schema.optional(Schema.String) }),
      responses: { 200: { description: "{path, parent, dirs: [name]}" } },
    },
    ({ query }) => {
      const path = query.path === undefined || query.path === "" ? homedir() : query.path;
      if (!isAbsolute(path)) throw badRequest("path must be absolute", "path");
      const abs = resolve(path);
      let dirs: string[];
      try {
        dirs = readdirSync(abs, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
          .sort((a, b) => Number(a.startsWith(".")) - Number(b.startsWith(".")) || a.localeCompare(b));
      } catch {
        throw notFound(`directory ${abs}`);
      }
      return json({ path: abs, parent: dirname(abs) === abs ? null : dirname(abs), dirs });
    },
  );
}
