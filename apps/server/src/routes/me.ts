/**
 * The signed-in user: who am I (with upload limits), change my password, my UI prefs.
 * Changing the password signs out every other browser session of the user, and for the
 * admin deletes `initial-admin-password`, which ends the startup notice's reminder.
 */
import { Schema } from "effect";
import { ADMIN_USER } from "../auth/admin-seed.js";
import { deleteInitialPassword } from "../auth/initial-password.js";
import { hashPassword } from "../auth/password.js";
import { notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { Password, Text } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { readServerSettings } from "../services/server-settings.js";
import { MeAnswer, Prefs } from "../contract/index.js";

const PasswordBody = Schema.Struct({ oldPassword: Text(1), newPassword: Password });
const PrefsBody = Schema.Record({ key: Schema.String, value: Schema.Unknown });

export function meRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/api/me",
      operationId: "me.get",
      beforePasswordChange: true,
      summary: "The signed-in user, the upload limits, and whether commands run sandboxed",
      tag: "me",
      access: "user",
      responses: {
        200: {
          description: "The user",
          schema: MeAnswer,
        },
      },
    },
    ({ user }) => {
      const settings = readServerSettings(ctx.stores.settings);
      return json({
        user: { userId: user.userId, isAdmin: user.isAdmin, passwordIsInitial: user.passwordIsInitial },
        uploadLimits: { attachmentMaxMb: settings.attachmentMaxMb, attachmentTotalMb: settings.attachmentTotalMb },
        sandbox: { available: ctx.sandbox.available, enabled: ctx.sandbox.enabled },
      });
    },
  );

  table.add(
    {
      method: "put",
      path: "/api/me/password",
      operationId: "me.changePassword",
      beforePasswordChange: true,
      summary: "Change my password (signs out my other browser sessions)",
      tag: "me",
      access: "user",
      body: PasswordBody,
      responses: { 204: { description: "Changed" }, 403: { description: "The old password is wrong" }, 429: { description: "Too many wrong old passwords (Retry-After)" } },
    },
    async ({ user, body }) => {
      if (ctx.stores.users.get(user.userId) === undefined) throw notFound("user");
      await ctx.login.checkCurrentPassword(user.userId, body.oldPassword);
      ctx.stores.users.setPassword(user.userId, await hashPassword(body.newPassword), false);
      ctx.stores.authSessions.revokeForUser(user.userId, user.tokenHash);
      if (user.userId === ADMIN_USER) deleteInitialPassword(ctx.root);
      return noContent();
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/me/prefs",
      operationId: "me.getPrefs",
      beforePasswordChange: true,
      summary: "My UI preferences",
      tag: "me",
      access: "user",
      responses: { 200: { description: "The preferences object", schema: Prefs } },
    },
    ({ user }) => json(ctx.stores.settings.prefs(user.userId)),
  );

  table.add(
    {
      method: "put",
      path: "/api/me/prefs",
      operationId: "me.putPrefs",
      beforePasswordChange: true,
      summary: "Shallow-merge into my UI preferences (null removes a key)",
      tag: "me",
      access: "user",
      body: PrefsBody,
      maxBodyBytes: 64 * 1024,
      responses: { 200: { description: "The merged preferences", schema: Prefs } },
    },
    ({ user, body }) => json(ctx.stores.settings.mergePrefs(user.userId, body)),
  );
}
