/**
 * Sign-in, the signed-in user, passwords, UI preferences and (admin) users. SPEC §9
 * `/api/auth/*`, `/api/me*`, `/api/admin/users*`.
 */
import { ApiError, del, get, post, put, request } from "./http";
import { asRecord, bool, listOf, num, str } from "./read";
import type { AdminUser, Me } from "./types";

function meOf(raw: unknown): Me {
  const o = asRecord(raw);
  const u = asRecord(o.user ?? o);
  const me: Me = { userId: str(u, "userId") ?? "", isAdmin: bool(u, "isAdmin") ?? false, passwordIsInitial: bool(u, "passwordIsInitial") ?? false };
  if (o.sandbox !== undefined) {
    const s = asRecord(o.sandbox);
    me.sandbox = { available: bool(s, "available") ?? false, enabled: bool(s, "enabled") ?? false };
  }
  return me;
}

export async function login(userId: string, password: string): Promise<Me> {
  return meOf(await request("POST", "/api/auth/login", { body: { userId, password }, quiet401: true }));
}

export const logout = () => post("/api/auth/logout", {});

/** The signed-in user, or undefined when the cookie is missing or expired. */
export async function fetchMe(): Promise<Me | undefined> {
  try {
    return meOf(await request("GET", "/api/me", { quiet401: true }));
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return undefined;
    throw e;
  }
}

export const changePassword = (oldPassword: string, newPassword: string) => put("/api/me/password", { oldPassword, newPassword });

export async function getPrefs(): Promise<Record<string, unknown>> {
  return asRecord(await get("/api/me/prefs"));
}

export const putPrefs = (prefs: Record<string, unknown>) => put("/api/me/prefs", prefs);

export async function listUsers(): Promise<AdminUser[]> {
  return listOf(await get("/api/admin/users"), "users").map((raw) => {
    const o = asRecord(raw);
    return {
      userId: str(o, "userId") ?? "",
      isAdmin: bool(o, "isAdmin") ?? false,
      passwordIsInitial: bool(o, "passwordIsInitial") ?? false,
      createdAt: num(o, "createdAt") ?? 0,
    };
  });
}

export const createUser = (userId: string, password: string) => post("/api/admin/users", { userId, password });
export const resetUserPassword = (userId: string, password: string) => post(`/api/admin/users/${encodeURIComponent(userId)}/password`, { password });
export const deleteUser = (userId: string) => del(`/api/admin/users/${encodeURIComponent(userId)}`);
