/**
 * `GET /api/skills`: the builtin skill library, grouped, with each skill's metadata (name,
 * description, short descriptions, preinstall, version). Any signed-in user may read it;
 * installing into an agent is routes/agent-skills.ts.
 */
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { libraryGroups } from "../services/skill-library.js";
import { SkillLibrary } from "../contract/index.js";

export function skillsRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/skills", operationId: "skills.library", summary: "The builtin skill library, grouped", tag: "skills", access: "user", responses: { 200: { description: "{groups: [{name, skills: [{name, description, shortDescription?, preinstall, version}]}]}", schema: SkillLibrary } } },
    () => json({ groups: libraryGroups() }),
  );
}
