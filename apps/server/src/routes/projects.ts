/**
 * Projects resource: list the projects I can see (with my role), create one (I own it),
 * rename, delete (the owner; not the default projects, not while a session runs), and
 * manage members (the owner). A project's folder is created with a ready `default_agent`.
 */
import { Schema } from "effect";
import type { ProjectRow } from "../db/projects-store.js";
import { conflict, notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { Capped, ProjectId, UserId } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { createProject, deleteProjectFiles } from "../services/projects.js";
import { MemberList, ProjectList, ProjectView } from "../contract/index.js";


export function projectRoutes(table: RouteTable, ctx: ServerContext): void {
  const { stores, access } = ctx;
  const view = (p: ProjectRow, role: "owner" | "member" | "admin") => ({ projectId: p.projectId, name: p.name, ownerUserId: p.ownerUserId, role, createdAt: p.createdAt });

  table.add(
    { method: "get", path: "/api/projects", operationId: "projects.list", summary: "Projects I can see", tag: "projects", access: "user", responses: { 200: { description: "Projects", schema: ProjectList } } },
    ({ user }) => json({ projects: access.visibleProjects(user).flatMap((p) => { const role = access.roleIn(user, p); return role === undefined ? [] : [view(p, role)]; }) }),
  );

  table.add(
    {
      method: "post",
      path: "/api/projects",
      operationId: "projects.create",
      summary: "Create a project I own",
      tag: "projects",
      access: "user",
      body: Schema.Struct({ projectId: ProjectId, name: Schema.optional(Capped(200)) }),
      responses: { 201: { description: "Created", schema: ProjectView }, 409: { description: "The id is taken" } },
    },
    async ({ user, body }) => {
      const row = await createProject(ctx.root, stores, { projectId: body.projectId, ownerUserId: user.userId, name: body.name ?? null }, ctx.now());
      return json(view(row, "owner"), 201);
    },
  );

  table.add(
    {
      method: "patch",
      path: "/api/projects/:p",
      operationId: "projects.rename",
      summary: "Rename a project",
      tag: "projects",
      access: "project",
      need: "owner",
      body: Schema.Struct({ name: Schema.NullOr(Capped(200)) }),
      responses: { 200: { description: "Renamed", schema: ProjectView } },
    },
    ({ grant, body }) => {
      stores.projects.rename(grant.project.projectId, body.name);
      return json(view({ ...grant.project, name: body.name }, grant.role));
    },
  );

  table.add(
    { method: "delete", path: "/api/projects/:p", operationId: "projects.delete", summary: "Delete a project and its files", tag: "projects", access: "project", need: "owner", responses: { 204: { description: "Deleted" }, 409: { description: "A default project, or a session is running" } } },
    async ({ grant }) => {
      if (ctx.sessions.anyBusy(grant.project.projectId)) throw conflict("task_in_progress", "a session of this project is running; abort it first");
      deleteProjectFiles(ctx.root, stores, grant.project);
      await ctx.sessions.dropAll(grant.project.projectId);
      return noContent();
    },
  );


  table.add(
    { method: "get", path: "/api/projects/:p/members", operationId: "members.list", summary: "The owner and members of a project", tag: "members", access: "project", responses: { 200: { description: "Members", schema: MemberList } } },
    ({ grant }) => {
      const owner = { userId: grant.project.ownerUserId, role: "owner" as const, createdAt: grant.project.createdAt };
      return json({ members: [owner, ...stores.projects.members(grant.project.projectId).map((m) => ({ userId: m.userId, role: "member" as const, createdAt: m.createdAt }))] });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/projects/:p/members",
      operationId: "members.add",
      summary: "Add a member",
      tag: "members",
      access: "project",
      need: "owner",
      body: Schema.Struct({ userId: UserId }),
      responses: { 204: { description: "Added (or already a member)" } },
    },
    ({ grant, body }) => {
      if (stores.users.get(body.userId) === undefined) throw notFound(`user ${body.userId}`);
      if (body.userId !== grant.project.ownerUserId) stores.projects.addMember(grant.project.projectId, body.userId, ctx.now());
      return noContent();
    },
  );

  table.add(
    {
      method: "delete",
      path: "/api/projects/:p/members/:u",
      operationId: "members.remove",
      summary: "Remove a member",
      tag: "members",
      access: "project",
      need: "owner",
      params: Schema.Struct({ u: UserId }),
      responses: { 204: { description: "Removed" } },
    },
    ({ grant, params }) => {
      if (!stores.projects.removeMember(grant.project.projectId, params.u)) throw notFound(`member ${params.u}`);
      return noContent();
    },
  );
}
