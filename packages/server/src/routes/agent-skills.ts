/**
 * An agent's installed skills (`agent_state/skills/<name>/`): list them (core validates
 * every SKILL.md), delete one (owner). Installing from the library or from a zip archive,
 * and downloading one as an archive, are not implemented (501): the library listing is not
 * exported by core and the server has no zip dependency.
 */
import { rmSync } from "node:fs";
import { listInstalledSkills } from "@penguin/core";
import { z } from "zod";
import { notImplemented } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { resolveInside } from "../services/confined-path.js";

const SkillName = z.object({ name: z.string().regex(/^[A-Za-z0-9_.-]{1,80}$/, "is not a skill name") });

export function agentSkillRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/skills", operationId: "agentSkills.list", summary: "Installed skills", tag: "skills", access: "agent", responses: { 200: { description: "{skills: [{name, description, …}]}" } } },
    async ({ grant }) => json({ skills: (await listInstalledSkills(grant.agent)).map(({ dir: _dir, ...meta }) => meta) }),
  );

  table.add(
    { method: "delete", path: "/api/projects/:p/agents/:a/skills/:name", operationId: "agentSkills.delete", summary: "Uninstall a skill", tag: "skills", access: "agent", need: "owner", params: SkillName, responses: { 204: { description: "Deleted" } } },
    ({ grant, params }) => {
      rmSync(resolveInside(grant.agent.skillsDir, params.name), { recursive: true });
      return noContent();
    },
  );

  for (const [method, path, id, feature, params] of [
    ["post", "/api/projects/:p/agents/:a/skills", "agentSkills.install", "installing library skills", undefined],
    ["post", "/api/projects/:p/agents/:a/skills/archive", "agentSkills.installArchive", "installing a skill archive", undefined],
    ["get", "/api/projects/:p/agents/:a/skills/:name/archive", "agentSkills.archive", "downloading a skill archive", SkillName],
  ] as const) {
    table.add(
      { method, path, operationId: id, summary: `${feature} (not implemented)`, tag: "skills", access: "agent", need: method === "get" ? "read" : "owner", params, responses: { 501: { description: "Not implemented" } } },
      () => {
        throw notImplemented(feature);
      },
    );
  }
}
