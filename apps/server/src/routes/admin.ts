/**
 * Admin resource: users (list, create with their personal project, reset a password, which
 * signs the user out everywhere, delete) and server settings. Non-admins get 404 for all of
 * it (the route table's `admin` access), like anything else they cannot reach.
 */
import { Schema } from "effect";
import { ADMIN_USER } from "../auth/admin-seed.js";
import { hashPassword } from "../auth/password.js";
import { conflict, notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { Password, UserId } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { ensureProject, personalProjectId } from "../services/projects.js";
import { readServerSettings, ServerSettings, writeServerSettings } from "../services/server-settings.js";
import { AdminUserCreated, AdminUserList } from "../contract/index.js";

const UserParams = Schema.Struct({ u: UserId });

export function adminRoutes(table: RouteTable, ctx: ServerContext): void {
  const { stores } = ctx;

  table.add(
    { method: "get", path: "/api/admin/users", operationId: "admin.listUsers", summary: "List users", tag: "admin", access: "admin", responses: { 200: { description: "Users", schema: AdminUserList } } },
    () => json({ users: stores.users.list().map((u) => ({ userId: u.userId, isAdmin: u.isAdmin, passwordIsInitial: u.passwordIsInitial, createdAt: u.createdAt })) }),
  );

  table.add(
    {
      method: "post",
      path: "/api/admin/users",
      operationId: "admin.createUser",
      summary: "Create a user (and their personal project <uid>_default_project)",
      tag: "admin",
      access: "admin",
      body: Schema.Struct({ userId: UserId, password: Password }),
      responses: { 201: { description: "Created", schema: AdminUserCreated }, 409: { description: "The user exists" } },
    },
    async ({ body }) => {
      if (stores.users.get(body.userId) !== undefined) throw conflict("already_exists", `user ${body.userId} already exists`);
      const now = ctx.now();
      stores.users.insert({ userId: body.userId, passwordHash: await hashPassword(body.password), isAdmin: false, passwordIsInitial: false, createdAt: now });
      const projectId = personalProjectId(body.userId);
      await ensureProject(ctx.root, stores, { projectId, ownerUserId: body.userId, name: null }, now);
      return json({ user: { userId: body.userId, isAdmin: false, passwordIsInitial: false, createdAt: now }, projectId }, 201);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/admin/users/:u/password",
      operationId: "admin.resetPassword",
      summary: "Set a user's password; signs them out everywhere",
      tag: "admin",
      access: "admin",
      params: UserParams,
      body: Schema.Struct({ password: Password }),
      responses: { 204: { description: "Reset" } },
    },
    async ({ params, body }) => {
      if (stores.users.get(params.u) === undefined) throw notFound(`user ${params.u}`);
      stores.users.setPassword(params.u, await hashPassword(body.password), false);
      stores.authSessions.revokeForUser(params.u);
      return noContent();
    },
  );

  table.add(
    {
      method: "delete",
      path: "/api/admin/users/:u",
      operationId: "admin.deleteUser",
      summary: "Delete a user; their projects pass to the admin",
      tag: "admin",
      access: "admin",
      params: UserParams,
      responses: { 204: { description: "Deleted" }, 409: { description: "The seeded admin or yourself" } },
    },
    ({ params, user }) => {
      if (stores.users.get(params.u) === undefined) throw notFound(`user ${params.u}`);
      if (params.u === ADMIN_USER || params.u === user.userId) throw conflict("protected", "the seeded admin and your own account cannot be deleted");
      stores.facts.transaction(() => {
        stores.projects.reassignOwner(params.u, ADMIN_USER);
        stores.users.delete(params.u);
      });
      return noContent();
    },
  );

  table.add(
    { method: "get", path: "/api/admin/settings", operationId: "admin.getSettings", summary: "Server settings", tag: "admin", access: "admin", responses: { 200: { description: "Settings", schema: ServerSettings } } },
    () => json(readServerSettings(stores.settings)),
  );

  table.add(
    {
      method: "put",
      path: "/api/admin/settings",
      operationId: "admin.putSettings",
      summary: "Replace server settings (missing keys take their defaults)",
      tag: "admin",
      access: "admin",
      body: ServerSettings,
      responses: { 200: { description: "Saved settings", schema: ServerSettings } },
    },
    ({ body }) => {
      writeServerSettings(stores.settings, body);
      return json(body);
    },
  );
}
