/**
 * First-start seeding: the `admin` user (there is no sign-up) and its ownership of
 * `default_project`, the project the CLI and SDK use, so on a local install the browser shows
 * CLI sessions and the models set with `penguin config model add` at once.
 *
 * Returns the password to print in the startup notice: the freshly generated one, or the one
 * still in the file while the admin has not changed it; undefined once it was changed (a
 * stale file is then removed).
 */
import { DEFAULT_PROJECT } from "@penguin/core";
import type { Stores } from "../db/stores.js";
import { hashPassword } from "./password.js";
import { deleteInitialPassword, generateInitialPassword, readInitialPassword, writeInitialPassword } from "./initial-password.js";

export const ADMIN_USER = "admin";

export async function ensureAdmin(stores: Stores, root: string, now: number): Promise<string | undefined> {
  let password: string | undefined;
  const admin = stores.users.get(ADMIN_USER);
  if (admin === undefined) {
    password = generateInitialPassword();
    stores.users.insert({ userId: ADMIN_USER, passwordHash: await hashPassword(password), isAdmin: true, passwordIsInitial: true, createdAt: now });
    writeInitialPassword(root, password);
  } else if (admin.passwordIsInitial) {
    password = readInitialPassword(root);
  } else {
    deleteInitialPassword(root);
  }
  stores.projects.insert({ projectId: DEFAULT_PROJECT, ownerUserId: ADMIN_USER, name: null, createdAt: now });
  return password;
}
