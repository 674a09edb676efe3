/**
 * The users list's data, for the router's read model: one cached query (`query`), read by
 * the page with `createAsync` and warmed by the /settings route's `preload`, so the list
 * starts loading while the page's chunk does. Only an admin may list users, so the preload
 * asks only for one. Changes call `reloadUsers()`, which revalidates the query.
 */
import { query, revalidate } from "@solidjs/router";
import { listUsers } from "../../api/auth";
import { auth } from "../../state/auth-store";

export const getUsers = query(() => listUsers(), "admin-users");

export function preloadSettings(): void {
  if (auth.me?.isAdmin === true) void getUsers().catch(() => undefined);
}

export function reloadUsers(): Promise<void> {
  return revalidate(getUsers.key);
}
