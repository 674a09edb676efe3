/**
 * Who is signed in. Loaded once at start (`GET /api/me`); any 401 from the API (the cookie
 * expired, or a password change elsewhere signed us out) flips the app back to the login
 * page through `onUnauthorized`. `passwordIsInitial` drives the forced password change.
 */
import { create } from "zustand";
import { changePassword, fetchMe, login, logout } from "../api/auth";
import { errorText, onUnauthorized } from "../api/http";
import type { Me } from "../api/types";

export type AuthStatus = "loading" | "signed-out" | "signed-in" | "error";

interface AuthState {
  status: AuthStatus;
  me: Me | undefined;
  error: string | undefined;
  load(): Promise<void>;
  signIn(userId: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  changePassword(oldPassword: string, newPassword: string): Promise<void>;
}

export const useAuth = create<AuthState>((set, get) => ({
  status: "loading",
  me: undefined,
  error: undefined,
  async load() {
    try {
      const me = await fetchMe();
      set(me === undefined ? { status: "signed-out", me: undefined, error: undefined } : { status: "signed-in", me, error: undefined });
    } catch (e) {
      set({ status: "error", error: errorText(e) });
    }
  },
  async signIn(userId, password) {
    const me = await login(userId, password);
    set({ status: "signed-in", me, error: undefined });
  },
  async signOut() {
    try {
      await logout();
    } finally {
      set({ status: "signed-out", me: undefined });
    }
  },
  async changePassword(oldPassword, newPassword) {
    await changePassword(oldPassword, newPassword);
    const me = get().me;
    if (me !== undefined) set({ me: { ...me, passwordIsInitial: false } });
  },
}));

onUnauthorized(() => {
  if (useAuth.getState().status === "signed-in") useAuth.setState({ status: "signed-out", me: undefined });
});
