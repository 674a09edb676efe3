/**
 * An agent's installed skills (`agent_state/skills/<name>/`): list them (core validates
 * every SKILL.md), install from the builtin library (`{names}`, core's `installSkill`, which
 * replaces an installed copy wholesale), install an uploaded zip (`{dataBase64, overwrite?}`,
 * ≤ 14 MB, one skill folder; unpacked into a staging folder with every path checked, then
 * validated and installed by core; 409 `already_exists` unless `overwrite`), download one as
 * a zip, and uninstall one. Members list and download; the owner changes.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, installSkill, listInstalledSkills } from "@penguin/core";
import { Schema } from "effect";
import { Matching, Text } from "../http/schemas.js";
import { ApiError, badRequest, conflict, notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { resolveInside } from "../services/confined-path.js";
import { packSkill, SKILL_ARCHIVE_MAX, unpackSkillArchive } from "../services/skill-archive.js";
import { librarySkill, skillView } from "../services/skill-library.js";
import { InstalledSkills, SkillArchiveInstalled, SkillsInstalled } from "../contract/index.js";

const SkillNameText = Matching(/^[A-Za-z0-9_-]{1,80}$/, "is not a skill name");
const SkillName = Schema.Struct({ name: SkillNameText });

export function agentSkillRoutes(table: RouteTable): void {
  const base = "/api/projects/:p/agents/:a/skills";

  table.add(
    { method: "get", path: base, operationId: "agentSkills.list", summary: "Installed skills", tag: "skills", access: "agent", responses: { 200: { description: "{skills: [{name, description, …}]}", schema: InstalledSkills } } },
    async ({ grant }) => json({ skills: (await listInstalledSkills(grant.agent)).map(skillView) }),
  );

  table.add(
    {
      method: "post",
      path: base,
      operationId: "agentSkills.install",
      summary: "Install skills from the builtin library (an installed copy is replaced)",
      tag: "skills",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ names: Schema.Array(SkillNameText).pipe(Schema.minItems(1), Schema.maxItems(100)) }),
      responses: { 200: { description: "{installed: [skill]}", schema: SkillsInstalled } },
    },
    async ({ grant, body }) => {
      const found = body.names.map((name, i) => {
        const skill = librarySkill(name);
        if (skill === undefined) throw badRequest(`names.${i}: "${name}" is not in the skill library`, `names.${i}`);
        return skill;
      });
      const installed = [];
      for (const skill of found) installed.push(skillView(await installSkill(grant.agent, skill.dir)));
      return json({ installed });
    },
  );

  table.add(
    {
      method: "post",
      path: `${base}/archive`,
      operationId: "agentSkills.installArchive",
      summary: "Install a skill from a zip archive (one skill folder with SKILL.md)",
      tag: "skills",
      access: "agent",
      need: "owner",
      body: Schema.Struct({ dataBase64: Text(1), overwrite: Schema.optional(Schema.Boolean) }),
      maxBodyBytes: Math.ceil(SKILL_ARCHIVE_MAX * 1.4) + 4096,
      responses: { 201: { description: "{installed: skill}", schema: SkillArchiveInstalled }, 409: { description: "A skill of that name is installed (send overwrite: true)" } },
    },
    async ({ grant, body }) => {
      const unpacked = unpackSkillArchive(Buffer.from(body.dataBase64, "base64"));
      try {
        if (existsSync(join(grant.agent.skillsDir, unpacked.name)) && body.overwrite !== true) {
          throw conflict("already_exists", `skill ${unpacked.name} is already installed; send overwrite: true to replace it`);
        }
        return json({ installed: skillView(await installSkill(grant.agent, unpacked.dir)) }, 201);
      } catch (error) {
        // Core names the staging folder; the uploader knows the file by its place in the archive.
        if (error instanceof ConfigError) {
          const where = [`${unpacked.name}/SKILL.md`, error.detail.line === undefined ? undefined : `line ${error.detail.line}`].filter(Boolean).join(", ");
          throw new ApiError(400, "invalid_config", `${where}: ${error.detail.problem}${error.detail.hint === undefined ? "" : ` (${error.detail.hint})`}`, { field: "dataBase64" });
        }
        throw error;
      } finally {
        unpacked.cleanup();
      }
    },
  );

  table.add(
    { method: "get", path: `${base}/:name/archive`, operationId: "agentSkills.archive", summary: "Download an installed skill as a zip", tag: "skills", access: "agent", params: SkillName, responses: { 200: { description: "The zip", contentType: "application/zip" } } },
    ({ grant, params }) => {
      const dir = resolveInside(grant.agent.skillsDir, params.name);
      if (!existsSync(join(dir, "SKILL.md"))) throw notFound(`skill ${params.name}`);
      const zip = packSkill(dir, params.name);
      return new Response(zip, {
        status: 200,
        headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${params.name}.zip"`, "x-content-type-options": "nosniff", "cache-control": "no-store" },
      });
    },
  );

  table.add(
    { method: "delete", path: `${base}/:name`, operationId: "agentSkills.delete", summary: "Uninstall a skill", tag: "skills", access: "agent", need: "owner", params: SkillName, responses: { 204: { description: "Deleted" } } },
    ({ grant, params }) => {
      rmSync(resolveInside(grant.agent.skillsDir, params.name), { recursive: true });
      return noContent();
    },
  );
}
