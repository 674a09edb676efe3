/**
 * The sidebar's session list for the current project: every agent's sessions, kept live
 * from the user's event stream (`GET /api/events`): `session_row` (the sessions projection's
 * row, for sessions run by the server, the CLI or the SDK alike) adds or updates the row
 * without a request, `session_created` fetches the new row, `session_state` and
 * `session_title` patch it, `session_deleted` drops it, and a
 * `resync_required` (or a reconnect the server could not replay) reloads the whole list.
 * Grouping (by workspace or by agent) and which sessions to show (the person's own, the
 * subagents' child sessions, or the archived ones) are view choices kept here so they
 * survive navigation. A module-level Solid store: rows are reconciled by id, so a patch
 * re-renders only the row it touches. The server announces no child session (they are indexed as a parent
 * runs), so while subagents are shown the list reloads when a session goes idle.
 */
import { createStore, produce, reconcile } from "solid-js/store";
import { errorText, notifyUnauthorized } from "../api/http";
import { getSession, listSessions, type SessionCategory } from "../api/sessions";
import { openSse, type SseConnection } from "../api/sse";
import { decodeFrame, type ServerEvent } from "../api/stream-events";
import type { SessionSummary } from "../api/types";
import { summaryFromRow } from "../lib/live-read-models";

export type Grouping = "workspace" | "agent";
/** Which sessions the list shows: the person's own, subagents' children, or archived ones. */
export type ListView = "active" | "subagent" | "archived";
export const LIST_VIEWS: readonly ListView[] = ["active", "subagent", "archived"];

export interface SessionListState {
  sessions: SessionSummary[];
  loading: boolean;
  error: string | undefined;
  grouping: Grouping;
  view: ListView;
}

let lastLoad: { projectId: string; agentIds: string[] } | undefined;
/** Sessions whose task state the server announces (`session_state`): their rows do not override it. */
const serverTasks = new Set<string>();

const [sessionList, setSessionList] = createStore<SessionListState>({ sessions: [], loading: false, error: undefined, grouping: "workspace", view: "active" });
export { sessionList };

/** Replaces the list, keeping unchanged rows (keyed by id) as they were. */
function setSessions(list: SessionSummary[]): void {
  setSessionList("sessions", reconcile(sortSessions(list), { key: "id" }));
}

export async function loadSessions(projectId: string, agentIds: string[]): Promise<void> {
  lastLoad = { projectId, agentIds };
  setSessionList("loading", true);
  try {
    const view = sessionList.view;
    const categories: SessionCategory[] = view === "active" ? ["active"] : ["active", view];
    const lists = await Promise.all(agentIds.flatMap((a) => categories.map((c) => listSessions(projectId, a, c))));
    if (lastLoad?.projectId !== projectId) return;
    const byId = new Map<string, SessionSummary>();
    for (const s of lists.flat()) byId.set(s.id, s);
    setSessions([...byId.values()]);
    setSessionList({ loading: false, error: undefined });
  } catch (e) {
    setSessionList({ loading: false, error: errorText(e) });
  }
}

function reload(): void {
  if (lastLoad !== undefined) void loadSessions(lastLoad.projectId, lastLoad.agentIds);
}

export function setGrouping(grouping: Grouping): void {
  setSessionList("grouping", grouping);
}

export function setListView(view: ListView): void {
  setSessionList("view", view);
  reload();
}

export function upsertSession(s: SessionSummary): void {
  setSessions([s, ...sessionList.sessions.filter((x) => x.id !== s.id).map((x) => ({ ...x }))]);
}

export function patchSession(id: string, patch: Partial<SessionSummary>): void {
  setSessionList("sessions", (s) => s.id === id, patch);
}

export function removeSession(id: string): void {
  setSessionList(
    "sessions",
    produce((list) => {
      const at = list.findIndex((s) => s.id === id);
      if (at >= 0) list.splice(at, 1);
    }),
  );
}

/** Applies one server event of the user's stream to the list. */
export function applyUserEvent(e: ServerEvent): void {
  switch (e.type) {
    case "session_created":
    case "session_updated":
      void getSession(e.sessionId).then(
        (s) => {
          if (s !== undefined && s.projectId === lastLoad?.projectId) upsertSession(s);
        },
        () => undefined,
      );
      return;
    case "session_state":
      serverTasks.add(e.sessionId);
      patchSession(e.sessionId, { state: e.state, ...(e.state === "running" ? { lastActiveAt: Date.now() } : {}) });
      if (e.state === "idle" && sessionList.view === "subagent") reload();
      return;
    case "session_title":
      if (e.sessionId !== undefined) patchSession(e.sessionId, { title: e.title });
      return;
    case "session_deleted":
      removeSession(e.sessionId);
      return;
    case "session_row": {
      if (e.row.projectId !== lastLoad?.projectId || !lastLoad.agentIds.includes(e.row.agentId)) return;
      const existing = sessionList.sessions.find((s) => s.id === e.row.sessionId);
      if (existing === undefined) upsertSession(summaryFromRow(e.row, undefined));
      else patchSession(e.row.sessionId, summaryFromRow(e.row, existing, serverTasks.has(e.row.sessionId)));
      return;
    }
    case "resync_required":
      reload();
      return;
    default:
      return;
  }
}

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

/** True when the search text (any case, any of its words) is in the session's label, agent or workspace. */
export function matchesSearch(s: SessionSummary, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return true;
  const haystack = `${sessionLabel(s)} ${s.agentId} ${s.workspace ?? ""}`.toLowerCase();
  return words.every((w) => haystack.includes(w));
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
      if (e?.kind === "server") applyUserEvent(e.event);
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
