/**
 * The sidebar's session list for the current project: every agent's sessions, kept live
 * from the user's event stream (`GET /api/events`): `session_created` fetches the new row,
 * `session_state` and `session_title` patch it, `session_deleted` drops it, and a
 * `resync_required` (or a reconnect the server could not replay) reloads the whole list.
 * Grouping (by workspace or by agent) and which sessions to show (the person's own, the
 * subagents' child sessions, or the archived ones) are view choices kept here so they
 * survive navigation. The server announces no child session (they are indexed as a parent
 * runs), so while subagents are shown the list reloads when a session goes idle.
 */
import { create } from "zustand";
import { errorText, notifyUnauthorized } from "../api/http";
import { getSession, listSessions, type SessionCategory } from "../api/sessions";
import { openSse, type SseConnection } from "../api/sse";
import { decodeFrame, type ServerEvent } from "../api/stream-events";
import type { SessionSummary } from "../api/types";

export type Grouping = "workspace" | "agent";
/** Which sessions the list shows: the person's own, subagents' children, or archived ones. */
export type ListView = "active" | "subagent" | "archived";
export const LIST_VIEWS: readonly ListView[] = ["active", "subagent", "archived"];

interface SessionListState {
  sessions: SessionSummary[];
  loading: boolean;
  error: string | undefined;
  grouping: Grouping;
  view: ListView;
  load(projectId: string, agentIds: string[]): Promise<void>;
  setGrouping(g: Grouping): void;
  setView(v: ListView): void;
  upsert(s: SessionSummary): void;
  patch(id: string, patch: Partial<SessionSummary>): void;
  remove(id: string): void;
  apply(e: ServerEvent): void;
}

let lastLoad: { projectId: string; agentIds: string[] } | undefined;

export const useSessionList = create<SessionListState>((set, get) => ({
  sessions: [],
  loading: false,
  error: undefined,
  grouping: "workspace",
  view: "active",
  async load(projectId, agentIds) {
    lastLoad = { projectId, agentIds };
    set({ loading: true });
    try {
      const view = get().view;
      const categories: SessionCategory[] = view === "active" ? ["active"] : ["active", view];
      const lists = await Promise.all(agentIds.flatMap((a) => categories.map((c) => listSessions(projectId, a, c))));
      if (lastLoad?.projectId !== projectId) return;
      const byId = new Map<string, SessionSummary>();
      for (const s of lists.flat()) byId.set(s.id, s);
      set({ sessions: sortSessions([...byId.values()]), loading: false, error: undefined });
    } catch (e) {
      set({ loading: false, error: errorText(e) });
    }
  },
  setGrouping(grouping) {
    set({ grouping });
  },
  setView(view) {
    set({ view });
    if (lastLoad !== undefined) void get().load(lastLoad.projectId, lastLoad.agentIds);
  },
  upsert(s) {
    set((st) => ({ sessions: sortSessions([s, ...st.sessions.filter((x) => x.id !== s.id)]) }));
  },
  patch(id, patch) {
    set((st) => ({ sessions: st.sessions.map((s) => (s.id === id ? { ...s, ...patch } : s)) }));
  },
  remove(id) {
    set((st) => ({ sessions: st.sessions.filter((s) => s.id !== id) }));
  },
  apply(e) {
    switch (e.type) {
      case "session_created":
      case "session_updated":
        void getSession(e.sessionId).then(
          (s) => {
            if (s !== undefined && s.projectId === lastLoad?.projectId) get().upsert(s);
          },
          () => undefined,
        );
        return;
      case "session_state":
        get().patch(e.sessionId, { state: e.state, ...(e.state === "running" ? { lastActiveAt: Date.now() } : {}) });
        if (e.state === "idle" && get().view === "subagent" && lastLoad !== undefined) void get().load(lastLoad.projectId, lastLoad.agentIds);
        return;
      case "session_title":
        if (e.sessionId !== undefined) get().patch(e.sessionId, { title: e.title });
        return;
      case "session_deleted":
        get().remove(e.sessionId);
        return;
      case "resync_required":
        if (lastLoad !== undefined) void get().load(lastLoad.projectId, lastLoad.agentIds);
        return;
      default:
        return;
    }
  },
}));

/** The sessions a view shows (the store holds the person's own sessions beside the view's). */
export function sessionsInView(sessions: readonly SessionSummary[], view: ListView): SessionSummary[] {
  switch (view) {
    case "active":
      return sessions.filter((s) => !s.archived && s.source !== "subagent");
    case "subagent":
      return sessions.filter((s) => s.source === "subagent");
    case "archived":
      return sessions.filter((s) => s.archived);
  }
}

/** What the list calls a session: its title, else (a subagent's child) its id's tail. */
export function sessionLabel(s: SessionSummary): string {
  if (s.title !== null && s.title !== "") return s.title;
  return s.source === "subagent" ? `Subagent ${s.id.slice(-8)}` : "Untitled session";
}

function sortSessions(list: SessionSummary[]): SessionSummary[] {
  return list.sort((a, b) => Math.max(b.lastActiveAt, b.createdAt) - Math.max(a.lastActiveAt, a.createdAt));
}

/** Follows `/api/events` into the list; returns the stop function. */
export function followUserEvents(): SseConnection {
  return openSse({
    url: "/api/events",
    onFrame(frame) {
      const e = decodeFrame(frame);
      if (e?.kind === "server") useSessionList.getState().apply(e.event);
    },
    onClosed({ status }) {
      if (status === 401) notifyUnauthorized();
    },
  });
}

export interface SessionGroup {
  key: string;
  label: string;
  sessions: SessionSummary[];
}

/** Groups for the sidebar, in order of each group's most recent session. */
export function groupSessions(sessions: SessionSummary[], grouping: Grouping): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  for (const s of sessions) {
    const label = grouping === "agent" ? s.agentId : workspaceLabel(s.workspace);
    const key = grouping === "agent" ? s.agentId : label === TMP_LABEL ? TMP_LABEL : (s.workspace ?? "");
    let g = groups.get(key);
    if (g === undefined) {
      g = { key, label, sessions: [] };
      groups.set(key, g);
    }
    g.sessions.push(s);
  }
  return [...groups.values()];
}

const TMP_LABEL = "Temporary workspaces";

export function workspaceLabel(path: string | null): string {
  if (path === null || path === "") return "No workspace";
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  const last = parts[parts.length - 1] ?? path;
  return /^tmp-[0-9a-f]{8}$/.test(last) ? TMP_LABEL : last;
}
