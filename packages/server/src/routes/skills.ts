/**
 * `GET /api/skills`: the builtin skill library. Not implemented: listing the library needs
 * `listLibrarySkills` from @penguin/skills, which core does not re-export and the server
 * does not depend on (reported; a one-line export in core makes this route a few lines).
 */
import { notImplemented } from "../http/api-error.js";
import type { RouteTable } from "../http/route-table.js";

export function skillsRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/skills", operationId: "skills.library", summary: "The builtin skill library (not implemented)", tag: "skills", access: "user", responses: { 501: { description: "Not implemented" } } },
    () => {
      throw notImplemented("the skill library listing");
    },
  );
}
