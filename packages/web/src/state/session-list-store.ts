/**
 * The sidebar's session list for the current project: every agent's sessions, kept live
 * from the user's event stream (`GET /api/events`): `session_created` fetches the new row,
 * `session_state` and `session_title` patch it, `session_deleted` drops it, and a
 * `resync_required` (or a reconnect the server could not replay) reloads the whole list.
 * Grouping (by workspace or by agent) and showing archived sessions are view choices kept
 * here so they survive navigation.
 */
import { create } from "zustand";
import { errorText, notifyUnauthorized } from "../api/http";
import { getSession, listSessions } from "../api/sessions";
import { openSse, type SseConnection } from "../api/sse";
import { decodeFrame, type ServerEvent } from "../api/stream-events";
import type { SessionSummary } from "../api/types";

export type Grouping = "workspace" | "agent";

interface SessionListState {
  sessions: SessionSummary[];
  loading: boolean;
  error: string | undefined;
  grouping: Grouping;
  showArchived: boolean;
  load(projectId: string, agentIds: string[]): Promise<void>;
  setGrouping(g: Grouping): void;
  setShowArchived(v: boolean): void;
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
  showArchived: false,
  async load(projectId, agentIds) {
    lastLoad = { projectId, agentIds };
    set({ loading: true });
    try {
      const categories = get().showArchived ? (["active", "archived"] as const) : (["active"] as const);
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
  setShowArchived(showArchived) {
    set({ showArchived });
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
