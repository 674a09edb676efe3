/**
 * Scheduled-task definitions, CRUD over `agent_state/schedule/<name>.toml` (the files are
 * the data; the text is stored as sent, comments included). The listing is the scheduler's
 * view (runtime/scheduler.ts): each file's name, enabled flag and period, whether it is valid
 * (and why not), its last run, next run, missed slots and last error. Members read; the
 * owner writes, and a file is checked (TOML, the schedule's fields, its workspace against the
 * workspace roots: services/schedule-check.ts) before it is written, so a bad one is a 400 and
 * the file on disk stays as it was. The scheduler picks up changes on its next tick.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Schema } from "effect";
import { Capped, Matching } from "../http/schemas.js";
import { conflict, notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { writeTextAtomic } from "../services/files.js";
import { checkScheduleText } from "../services/schedule-check.js";
import { ScheduleFile, ScheduleList } from "../contract/index.js";

const Name = Matching(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 letters, digits, _ or -");
const DefinitionText = Capped(256 * 1024);

export function scheduleRoutes(table: RouteTable, ctx: ServerContext): void {
  const fileOf = (dir: string, name: string) => join(dir, `${name}.toml`);

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/schedules", operationId: "schedules.list", summary: "Scheduled tasks (definitions)", tag: "schedules", access: "agent", responses: { 200: { description: "{schedules: [{name, enabled, period, valid, invalidReason, lastFiredAt, nextAt, missed, lastError}], running: true}", schema: ScheduleList } } },
    async ({ grant }) => json({ schedules: await ctx.scheduler.status(grant.project.projectId, grant.agent.agentId), running: true }),
  );

  table.add(
    { method: "post", path: "/api/projects/:p/agents/:a/schedules", operationId: "schedules.create", summary: "Create a schedule file", tag: "schedules", access: "agent", need: "owner", body: Schema.Struct({ name: Name, text: DefinitionText }), responses: { 201: { description: "Created", schema: ScheduleFile }, 409: { description: "The name is taken" } } },
    ({ grant, body }) => {
      const file = fileOf(grant.agent.scheduleDir, body.name);
      if (existsSync(file)) throw conflict("already_exists", `schedule ${body.name} already exists`);
      checkScheduleText(body.text, body.name, grant.agent, ctx.workspaces, "text");
      mkdirSync(grant.agent.scheduleDir, { recursive: true });
      writeTextAtomic(file, body.text);
      return json({ name: body.name, text: body.text }, 201);
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/schedules/:name", operationId: "schedules.get", summary: "One schedule file", tag: "schedules", access: "agent", params: Schema.Struct({ name: Name }), responses: { 200: { description: "{name, text}", schema: ScheduleFile } } },
    ({ grant, params }) => {
      try {
        return json({ name: params.name, text: readFileSync(fileOf(grant.agent.scheduleDir, params.name), "utf8") });
      } catch {
        throw notFound(`schedule ${params.name}`);
      }
    },
  );

  table.add(
    { method: "put", path: "/api/projects/:p/agents/:a/schedules/:name", operationId: "schedules.update", summary: "Replace a schedule file", tag: "schedules", access: "agent", need: "owner", params: Schema.Struct({ name: Name }), body: Schema.Struct({ text: DefinitionText }), responses: { 200: { description: "{name, text}", schema: ScheduleFile } } },
    ({ grant, params, body }) => {
      const file = fileOf(grant.agent.scheduleDir, params.name);
      if (!existsSync(file)) throw notFound(`schedule ${params.name}`);
      checkScheduleText(body.text, params.name, grant.agent, ctx.workspaces, "text");
      writeTextAtomic(file, body.text);
      return json({ name: params.name, text: body.text });
    },
  );

  table.add(
    { method: "delete", path: "/api/projects/:p/agents/:a/schedules/:name", operationId: "schedules.delete", summary: "Delete a schedule file", tag: "schedules", access: "agent", need: "owner", params: Schema.Struct({ name: Name }), responses: { 204: { description: "Deleted" } } },
    ({ grant, params }) => {
      const file = fileOf(grant.agent.scheduleDir, params.name);
      if (!existsSync(file)) throw notFound(`schedule ${params.name}`);
      rmSync(file);
      return noContent();
    },
  );
}
