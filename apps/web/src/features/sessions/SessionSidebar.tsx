/**
 * The session list beside the chat: grouped by workspace or by agent, newest first, with a
 * running marker, and per-session rename, archive (or restore) and delete. It loads the
 * project's sessions for every agent and then stays current from the user's event stream
 * (state/session-list-store.ts).
 *
 * "Show" picks the person's sessions, the subagents' child sessions (`category=subagent`;
 * a child opens its own stream at /chat/<child id>, like the subagent row's link) or the
 * archived ones. A child has no title of its own, so it is named by its id's tail. The
 * search box filters what is shown by title, agent or workspace (matchesSearch).
 *
 * A fork or a replay carries a badge ("fork", "replay") and a link to the session it came
 * from (`forkedFrom` / `replayOf` of the list API), named by that session's title when it is
 * listed too.
 */
import { createEffect, createMemo, createSignal, For, on, onCleanup, onMount, Show } from "solid-js";
import { A, useNavigate, useParams } from "@solidjs/router";
import { errorText } from "../../api/http";
import { deleteSession, patchSession } from "../../api/sessions";
import type { SessionSummary } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { TextField } from "../../components/ui/Field";
import { Icon } from "../../components/ui/Icon";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { relativeTime } from "../../lib/format";
import { project } from "../../state/project-store";
import {
  followUserEvents,
  groupSessions,
  LIST_VIEWS,
  loadSessions,
  matchesSearch,
  patchSession as patchListed,
  removeSession,
  sessionLabel,
  sessionList,
  sessionsInView,
  setGrouping,
  setListView,
  type ListView,
} from "../../state/session-list-store";

const VIEW_LABELS: Record<ListView, string> = { active: "sessions", subagent: "subagents", archived: "archived" };
const EMPTY: Record<ListView, string> = { active: "No sessions yet.", subagent: "No subagent sessions yet.", archived: "No archived sessions." };

export function SessionSidebar(props: { onNavigate?: () => void }) {
  const [renaming, setRenaming] = createSignal<SessionSummary | undefined>(undefined);
  const [actionError, setActionError] = createSignal<string | undefined>(undefined);
  const [search, setSearch] = createSignal("");
  const [loaded, setLoaded] = createSignal(false);
  const agentKey = () => project.agents.map((a) => a.agentId).join(",");

  createEffect(
    on([() => project.projectId, agentKey], ([projectId, agents]) => {
      if (projectId !== undefined && agents !== "") void loadSessions(projectId, agents.split(",")).finally(() => setLoaded(true));
    }),
  );

  onMount(() => {
    const conn = followUserEvents();
    onCleanup(() => conn.close());
  });

  const groups = createMemo(() => {
    const shown = sessionsInView(sessionList.sessions, sessionList.view).filter((s) => matchesSearch(s, search()));
    return groupSessions(shown, sessionList.grouping);
  });

  return (
    <nav aria-label="Sessions" class="flex h-full flex-col">
      <div class="flex flex-col gap-2 p-3">
        <A href="/chat" end onClick={() => props.onNavigate?.()} class="rounded-md bg-blue-600 px-3 py-1.5 text-center text-sm font-medium text-white hover:bg-blue-700">
          New chat
        </A>
        <label class="sr-only" for="session-search">
          Search sessions
        </label>
        <input
          id="session-search"
          type="search"
          placeholder="Search sessions"
          value={search()}
          onInput={(e) => setSearch(e.currentTarget.value)}
          class="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
        />
        <div class="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
          <label class="flex items-center gap-1 whitespace-nowrap">
            <span>Group by</span>
            <select
              value={sessionList.grouping}
              onChange={(e) => setGrouping(e.currentTarget.value === "agent" ? "agent" : "workspace")}
              class="rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              <option value="workspace" selected={sessionList.grouping === "workspace"}>
                workspace
              </option>
              <option value="agent" selected={sessionList.grouping === "agent"}>
                agent
              </option>
            </select>
          </label>
          <label class="flex items-center gap-1 whitespace-nowrap">
            <span>Show</span>
            <select
              value={sessionList.view}
              onChange={(e) => {
                const value = e.currentTarget.value;
                const next = LIST_VIEWS.find((v) => v === value);
                if (next !== undefined) setListView(next);
              }}
              class="rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              <For each={LIST_VIEWS}>
                {(v) => (
                  <option value={v} selected={v === sessionList.view}>
                    {VIEW_LABELS[v]}
                  </option>
                )}
              </For>
            </select>
          </label>
        </div>
      </div>
      <Show when={sessionList.error ?? actionError()}>
        {(text) => (
          <Notice tone="error" class="mx-3">
            {text()}
          </Notice>
        )}
      </Show>
      <div class="min-h-0 flex-1 overflow-y-auto px-2 pb-3">
        <Show when={loaded() || sessionList.sessions.length > 0} fallback={<div class="px-2"><Spinner label="Loading sessions" /></div>}>
          <Show when={groups().length === 0}>
            <p class="px-2 text-xs text-slate-500">{search().trim() !== "" ? "No session matches the search." : EMPTY[sessionList.view]}</p>
          </Show>
        </Show>
        <For each={groups()}>
          {(g) => (
            <section aria-label={g.label} class="mb-3">
              <h3 class="truncate px-2 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase" title={g.key}>
                {g.label}
              </h3>
              <ul>
                <For each={g.sessions}>{(s) => <SessionRow session={s} onNavigate={props.onNavigate} onRename={() => setRenaming(s)} onError={setActionError} />}</For>
              </ul>
            </section>
          )}
        </For>
      </div>
      <Show when={renaming()}>{(s) => <RenameDialog session={s()} onClose={() => setRenaming(undefined)} />}</Show>
    </nav>
  );
}

function SessionRow(props: { session: SessionSummary; onNavigate: (() => void) | undefined; onRename(): void; onError(e: string | undefined): void }) {
  const params = useParams<{ id?: string }>();
  const navigate = useNavigate();
  const [menu, setMenu] = createSignal(false);
  const active = () => params.id === props.session.id;
  const title = () => sessionLabel(props.session);

  // Optimistic: the row moves at once; a refusal moves it back and says why.
  const archive = async () => {
    setMenu(false);
    const id = props.session.id;
    const archived = !props.session.archived;
    props.onError(undefined);
    patchListed(id, { archived });
    try {
      await patchSession(id, { archived });
    } catch (e) {
      patchListed(id, { archived: !archived });
      props.onError(errorText(e));
    }
  };
  const remove = async () => {
    setMenu(false);
    if (!window.confirm(`Delete “${title()}” and its traces? This cannot be undone.`)) return;
    const id = props.session.id;
    const wasActive = active();
    try {
      await deleteSession(id);
      removeSession(id);
      if (wasActive) navigate("/chat");
    } catch (e) {
      props.onError(errorText(e));
    }
  };

  return (
    <li class={`group relative flex items-center rounded-md ${active() ? "bg-blue-50 dark:bg-slate-800" : "hover:bg-slate-100 dark:hover:bg-slate-900"}`}>
      <div class="min-w-0 flex-1">
        <A href={`/chat/${encodeURIComponent(props.session.id)}`} onClick={() => props.onNavigate?.()} aria-current={active() ? "page" : undefined} class="block min-w-0 px-2 py-1.5">
          <span class="flex items-center gap-1.5">
            <Show when={props.session.state !== "idle"}>
              <span class="h-2 w-2 shrink-0 animate-pulse rounded-full bg-blue-500" aria-label="running" />
            </Show>
            <Show when={props.session.source === "subagent"}>
              <Icon name="subagent" class="h-3.5 w-3.5 text-violet-600" />
            </Show>
            <span class="truncate text-sm">{title()}</span>
          </span>
          <span class="block truncate text-xs text-slate-500">
            {props.session.agentId} · {relativeTime(Math.max(props.session.lastActiveAt, props.session.createdAt))}
          </span>
        </A>
        <Show when={originOf(props.session)}>{(o) => <OriginLine origin={o()} onNavigate={props.onNavigate} />}</Show>
      </div>
      <button
        type="button"
        aria-label={`Actions for ${title()}`}
        aria-haspopup="menu"
        aria-expanded={menu()}
        onClick={() => setMenu(!menu())}
        class="mr-1 rounded px-1.5 text-slate-500 hover:bg-slate-200 dark:hover:bg-slate-700"
      >
        ⋯
      </button>
      <Show when={menu()}>
        <div role="menu" class="absolute top-full right-1 z-30 flex w-36 flex-col rounded-md border border-slate-200 bg-white py-1 shadow-lg dark:border-slate-700 dark:bg-slate-900" onKeyDown={(e) => e.key === "Escape" && setMenu(false)}>
          <button
            type="button"
            role="menuitem"
            class="px-3 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
            onClick={() => {
              setMenu(false);
              props.onRename();
            }}
          >
            Rename
          </button>
          <button type="button" role="menuitem" class="px-3 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => void archive()}>
            {props.session.archived ? "Unarchive" : "Archive"}
          </button>
          <button type="button" role="menuitem" class="px-3 py-1 text-left text-sm text-red-700 hover:bg-slate-100 dark:text-red-400 dark:hover:bg-slate-800" onClick={() => void remove()}>
            Delete
          </button>
        </div>
      </Show>
    </li>
  );
}

interface SessionOrigin {
  kind: "fork" | "replay";
  sessionId: string;
  /** A fork's cut, `NNN:LLLLLL`. */
  at?: string;
}

/** Where a listed session came from: a fork of another session, or a replay of a recording. */
export function originOf(s: SessionSummary): SessionOrigin | undefined {
  if (s.forkedFrom !== null && s.forkedFrom !== undefined) return { kind: "fork", sessionId: s.forkedFrom.sessionId, at: s.forkedFrom.at };
  if (s.replayOf !== null && s.replayOf !== undefined) return { kind: "replay", sessionId: s.replayOf };
  return undefined;
}

const ORIGIN_LOOK: Record<SessionOrigin["kind"], string> = {
  fork: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100",
  replay: "bg-violet-100 text-violet-800 dark:bg-violet-900 dark:text-violet-100",
};

/** The row's second link: a badge saying fork or replay, and the origin session, by its title when listed. */
function OriginLine(props: { origin: SessionOrigin; onNavigate: (() => void) | undefined }) {
  const label = () => {
    const listed = sessionList.sessions.find((x) => x.id === props.origin.sessionId);
    return listed !== undefined ? sessionLabel(listed) : props.origin.sessionId.replace(/^session-\d{4}-\d{2}-\d{2}-/, "");
  };
  const name = () => (props.origin.kind === "fork" ? `Forked from ${label()}${props.origin.at === undefined ? "" : ` at ${props.origin.at}`}` : `Replay of ${label()}`);
  return (
    <span class="flex min-w-0 items-center gap-1 px-2 pb-1.5 text-xs">
      <span class={`shrink-0 rounded px-1 font-medium ${ORIGIN_LOOK[props.origin.kind]}`}>{props.origin.kind}</span>
      <A href={`/chat/${encodeURIComponent(props.origin.sessionId)}`} onClick={() => props.onNavigate?.()} aria-label={name()} title={name()} class="min-w-0 truncate text-slate-600 hover:underline dark:text-slate-400">
        {props.origin.kind === "fork" ? "from" : "of"} {label()}
      </A>
    </span>
  );
}

function RenameDialog(props: { session: SessionSummary; onClose(): void }) {
  const [title, setTitle] = createSignal(props.session.title ?? "");
  const [error, setError] = createSignal<string | undefined>(undefined);
  const save = async () => {
    const next = title().trim();
    try {
      await patchSession(props.session.id, { title: next });
      patchListed(props.session.id, { title: next });
      props.onClose();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <Dialog title="Rename session" onClose={() => props.onClose()}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        class="flex flex-col gap-3"
      >
        <TextField label="Title" value={title()} onValue={setTitle} maxLength={200} required />
        <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
        <div class="flex justify-end gap-2">
          <Button onClick={() => props.onClose()}>Cancel</Button>
          <Button type="submit" variant="primary">
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
