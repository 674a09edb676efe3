/**
 * The session list beside the chat: grouped by workspace or by agent, newest first, with a
 * running marker, and per-session rename, archive (or restore) and delete. It loads the
 * project's sessions for every agent and then stays current from the user's event stream
 * (state/session-list-store.ts).
 *
 * "Show" picks the person's sessions, the subagents' child sessions (`category=subagent`;
 * a child opens its own stream at /chat/<child id>, like the subagent row's link) or the
 * archived ones. A child has no title of its own, so it is named by its id's tail.
 */
import { useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { errorText } from "../../api/http";
import { deleteSession, patchSession } from "../../api/sessions";
import type { SessionSummary } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Icon } from "../../components/ui/Icon";
import { relativeTime } from "../../lib/format";
import { useProject } from "../../state/project-store";
import { followUserEvents, groupSessions, LIST_VIEWS, sessionLabel, sessionsInView, useSessionList, type ListView } from "../../state/session-list-store";

const VIEW_LABELS: Record<ListView, string> = { active: "sessions", subagent: "subagents", archived: "archived" };
const EMPTY: Record<ListView, string> = { active: "No sessions yet.", subagent: "No subagent sessions yet.", archived: "No archived sessions." };

export function SessionSidebar({ onNavigate }: { onNavigate?: () => void }) {
  const { projectId, agents } = useProject();
  const { sessions, grouping, view, setGrouping, setView, load, error } = useSessionList();
  const [renaming, setRenaming] = useState<SessionSummary | undefined>(undefined);
  const [actionError, setActionError] = useState<string | undefined>(undefined);
  const agentKey = agents.map((a) => a.agentId).join(",");

  useEffect(() => {
    if (projectId !== undefined && agentKey !== "") void load(projectId, agentKey.split(","));
  }, [projectId, agentKey, load]);

  useEffect(() => {
    const conn = followUserEvents();
    return () => conn.close();
  }, []);

  const visible = sessionsInView(sessions, view);
  const groups = groupSessions(visible, grouping);

  return (
    <nav aria-label="Sessions" className="flex h-full flex-col">
      <div className="flex flex-col gap-2 p-3">
        <Link to="/chat" onClick={onNavigate} className="rounded-md bg-blue-600 px-3 py-1.5 text-center text-sm font-medium text-white hover:bg-blue-700">
          New chat
        </Link>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
          <label className="flex items-center gap-1 whitespace-nowrap">
            <span>Group by</span>
            <select
              value={grouping}
              onChange={(e) => setGrouping(e.target.value === "agent" ? "agent" : "workspace")}
              className="rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              <option value="workspace">workspace</option>
              <option value="agent">agent</option>
            </select>
          </label>
          <label className="flex items-center gap-1 whitespace-nowrap">
            <span>Show</span>
            <select
              value={view}
              onChange={(e) => {
                const next = LIST_VIEWS.find((v) => v === e.target.value);
                if (next !== undefined) setView(next);
              }}
              className="rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              {LIST_VIEWS.map((v) => (
                <option key={v} value={v}>
                  {VIEW_LABELS[v]}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {(error ?? actionError) !== undefined && (
        <Notice tone="error" className="mx-3">
          {error ?? actionError}
        </Notice>
      )}
      <div className="min-h-0 flex-1 overflow-y-auto px-2 pb-3">
        {groups.length === 0 && <p className="px-2 text-xs text-slate-500">{EMPTY[view]}</p>}
        {groups.map((g) => (
          <section key={g.key} aria-label={g.label} className="mb-3">
            <h3 className="truncate px-2 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase" title={g.key}>
              {g.label}
            </h3>
            <ul>
              {g.sessions.map((s) => (
                <SessionRow key={s.id} session={s} onNavigate={onNavigate} onRename={() => setRenaming(s)} onError={setActionError} />
              ))}
            </ul>
          </section>
        ))}
      </div>
      {renaming !== undefined && <RenameDialog session={renaming} onClose={() => setRenaming(undefined)} />}
    </nav>
  );
}

function SessionRow({ session, onNavigate, onRename, onError }: { session: SessionSummary; onNavigate: (() => void) | undefined; onRename(): void; onError(e: string | undefined): void }) {
  const { id: current } = useParams();
  const navigate = useNavigate();
  const [menu, setMenu] = useState(false);
  const active = current === session.id;
  const title = sessionLabel(session);

  const archive = async () => {
    setMenu(false);
    try {
      await patchSession(session.id, { archived: !session.archived });
      useSessionList.getState().patch(session.id, { archived: !session.archived });
    } catch (e) {
      onError(errorText(e));
    }
  };
  const remove = async () => {
    setMenu(false);
    if (!window.confirm(`Delete “${title}” and its traces? This cannot be undone.`)) return;
    try {
      await deleteSession(session.id);
      useSessionList.getState().remove(session.id);
      if (active) navigate("/chat");
    } catch (e) {
      onError(errorText(e));
    }
  };

  return (
    <li className={`group relative flex items-center rounded-md ${active ? "bg-blue-50 dark:bg-slate-800" : "hover:bg-slate-100 dark:hover:bg-slate-900"}`}>
      <Link to={`/chat/${encodeURIComponent(session.id)}`} onClick={onNavigate} aria-current={active ? "page" : undefined} className="min-w-0 flex-1 px-2 py-1.5">
        <span className="flex items-center gap-1.5">
          {session.state !== "idle" && <span className="h-2 w-2 shrink-0 animate-pulse rounded-full bg-blue-500" aria-label="running" />}
          {session.source === "subagent" && <Icon name="subagent" className="h-3.5 w-3.5 text-violet-600" />}
          <span className="truncate text-sm">{title}</span>
        </span>
        <span className="block truncate text-xs text-slate-500">
          {session.agentId} · {relativeTime(Math.max(session.lastActiveAt, session.createdAt))}
        </span>
      </Link>
      <button type="button" aria-label={`Actions for ${title}`} aria-haspopup="menu" aria-expanded={menu} onClick={() => setMenu(!menu)} className="mr-1 rounded px-1.5 text-slate-500 hover:bg-slate-200 dark:hover:bg-slate-700">
        ⋯
      </button>
      {menu && (
        <div role="menu" className="absolute top-full right-1 z-30 flex w-36 flex-col rounded-md border border-slate-200 bg-white py-1 shadow-lg dark:border-slate-700 dark:bg-slate-900" onKeyDown={(e) => e.key === "Escape" && setMenu(false)}>
          <button type="button" role="menuitem" className="px-3 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => { setMenu(false); onRename(); }}>
            Rename
          </button>
          <button type="button" role="menuitem" className="px-3 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => void archive()}>
            {session.archived ? "Unarchive" : "Archive"}
          </button>
          <button type="button" role="menuitem" className="px-3 py-1 text-left text-sm text-red-700 hover:bg-slate-100 dark:text-red-400 dark:hover:bg-slate-800" onClick={() => void remove()}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}

function RenameDialog({ session, onClose }: { session: SessionSummary; onClose(): void }) {
  const [title, setTitle] = useState(session.title ?? "");
  const [error, setError] = useState<string | undefined>(undefined);
  const save = async () => {
    try {
      await patchSession(session.id, { title: title.trim() });
      useSessionList.getState().patch(session.id, { title: title.trim() });
      onClose();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <Dialog title="Rename session" onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        className="flex flex-col gap-3"
      >
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} required />
        {error !== undefined && <Notice tone="error">{error}</Notice>}
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary">
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
