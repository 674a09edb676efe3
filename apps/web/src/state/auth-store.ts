/**
 * Who is signed in. Loaded once at start (`GET /api/me`); any 401 from the API (the cookie
 * expired, or a password change elsewhere signed us out) flips the app back to the login
 * page through `onUnauthorized`. `passwordIsInitial` drives the forced password change.
 *
 * A module-level Solid store: components read `auth.status` / `auth.me` and re-run exactly
 * where those are read; the actions below are the only writers.
 */
import { createStore } from "solid-js/store";
import { changePassword as postPasswordChange, fetchMe, login, logout } from "../api/auth";
import { errorText, onUnauthorized } from "../api/http";
import type { Me } from "../api/types";

export type AuthStatus = "loading" | "signed-out" | "signed-in" | "error";

export interface AuthState {
  status: AuthStatus;
  me: Me | undefined;
  error: string | undefined;
}

const [auth, setAuth] = createStore<AuthState>({ status: "loading", me: undefined, error: undefined });
export { auth };

export async function loadAuth(): Promise<void> {
  try {
    const me = await fetchMe();
    setAuth(me === undefined ? { status: "signed-out", me: undefined, error: undefined } : { status: "signed-in", me, error: undefined });
  } catch (e) {
    setAuth({ status: "error", error: errorText(e) });
  }
}

export async function signIn(userId: string, password: string): Promise<void> {
  const me = await login(userId, password);
  setAuth({ status: "signed-in", me, error: undefined });
}

export async function signOut(): Promise<void> {
  try {
    await logout();
  } finally {
    setAuth({ status: "signed-out", me: undefined });
  }
}

export async function changePassword(oldPassword: string, newPassword: string): Promise<void> {
  await postPasswordChange(oldPassword, newPassword);
  if (auth.me !== undefined) setAuth("me", "passwordIsInitial", false);
}

onUnauthorized(() => {
  if (auth.status === "signed-in") setAuth({ status: "signed-out", me: undefined });
});
