/**
 * SessionController: everything one open chat needs from the server, kept in one small
 * store the page subscribes to.
 *
 * Life of a controller:
 * 1. open the session's SSE stream (api/sse.ts) with no id: events are buffered (stitch.ts);
 * 2. once the stream is open (the server has subscribed us), fetch the history;
 * 3. seed: history, live fragments, then the buffer past the cursor; now live;
 * 4. reconnects resume with `Last-Event-ID` (the transport) and overlaps are dropped by id;
 *    `resync_required`, or a history that cannot be placed, resets the view and refetches.
 *
 * Older history: the first load is the newest `TAIL` trace messages; `loadOlder()` fetches
 * the page before the oldest one (`before=<position>`) and rebuilds the view from that page
 * plus a log of everything applied since (messages and task ends, in order), so the live
 * state is reproduced exactly with the older rows in front.
 *
 * Rendering is batched: applied events mark the view dirty and one flush per animation
 * frame publishes the reducer's items (`schedule` is injectable so tests flush at once), so a
 * burst of deltas costs one update. The view is a Solid store: each flush reconciles the
 * reducer's immutable rows into it by `id` (`reconcile` with a key), so only the rows whose
 * fields changed notify their readers. Server events go through session-events.ts, a pure
 * reducer over the same store (approvals spliced with `produce`), which hands back what only
 * the controller can do (close the task, resync, unlock).
 * Server events update the task state, pending approvals, queue/steering lists, title and
 * the auth lock. All HTTP goes through api/*; this file holds no protocol logic beyond
 * routing events to the reducer.
 *
 * Goal mode: `goal` is the session's latest goal, folded by lib/stream/goal.ts from the
 * `GET S/goal` answer (fetched beside each history load, never holding it up), the live
 * `goal_*` server events (stale ones are older than that answer and skipped) and each new
 * round the reducer reads from a `[goal]` block. `goalRunning` says a goal round is open in
 * the current task: the index may still say `active` for a goal whose run died with the
 * server, and that must not pass for a running goal during a later plain task.
 */
import { batch } from "solid-js";
import { createStore, reconcile, type SetStoreFunction } from "solid-js/store";
import type { OmniMessage } from "@penguin/omnimessage";
import { errorText, notifyUnauthorized } from "../../api/http";
import { getGoal, getHistory, type HistoryQuery } from "../../api/sessions";
import { openSse, type SseConnection, type SseOptions } from "../../api/sse";
import { decodeFrame, type ServerEvent } from "../../api/stream-events";
import type { GoalState, SessionHistory, TaskState } from "../../api/types";
import type { GoalUpdate } from "./goal";
import { StreamReducer } from "./reducer";
import { Stitcher } from "./stitch";
import type { GoalRoundItem, ViewItem } from "./view-model";
import { applyGoal, applySessionEvent, dropApproval } from "./session-events";
import { initialSessionViewState, type SessionViewState } from "./session-view";

export { initialSessionViewState, type SessionViewState };

export interface ControllerDeps {
  fetchHistory?: (id: string, signal: AbortSignal, query: HistoryQuery) => Promise<SessionHistory>;
  /** The latest goal (undefined: none). */
  fetchGoal?: (id: string, signal: AbortSignal) => Promise<GoalState | undefined>;
  openStream?: (options: SseOptions) => SseConnection;
  /** Runs `fn` soon (default: next animation frame). */
  schedule?: (fn: () => void) => void;
}

const MAX_SEED_ATTEMPTS = 3;
/** Trace messages in the first history page and in each older page. */
export const HISTORY_PAGE = 2000;

type LogEntry = OmniMessage | "end";

function defaultSchedule(fn: () => void): void {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => fn());
  else setTimeout(fn, 16);
}

export class SessionController {
  readonly sessionId: string;
  /** The live view (a Solid store: read it in components, never write it). */
  readonly view: SessionViewState;
  readonly #setView: SetStoreFunction<SessionViewState>;
  readonly #deps: Required<ControllerDeps>;
  #reducer = new StreamReducer();
  readonly #stitcher: Stitcher;
  #stream: SseConnection | undefined;
  #loadAbort: AbortController | undefined;
  #flushQueued = false;
  #closed = false;
  #attempts = 0;
  /** Everything applied since the last seed, to rebuild the view with older pages in front. */
  #log: LogEntry[] = [];
  #older: OmniMessage[] = [];
  #oldestPosition: string | null = null;
  /** The reducer's newest goal round already folded into `goal`. */
  #seenRound: GoalRoundItem | undefined;
  /** The reducer's rows last reconciled into the view. */
  #published: readonly ViewItem[] | undefined;
  #copies = new WeakMap<ViewItem, ViewItem>();

  constructor(sessionId: string, deps: ControllerDeps = {}) {
    this.sessionId = sessionId;
    this.#deps = {
      fetchHistory: deps.fetchHistory ?? ((id, signal, query) => getHistory(id, signal, query)),
      fetchGoal: deps.fetchGoal ?? ((id, signal) => getGoal(id, signal)),
      openStream: deps.openStream ?? openSse,
      schedule: deps.schedule ?? defaultSchedule,
    };
    const [view, setView] = createStore<SessionViewState>(initialSessionViewState());
    this.view = view;
    this.#setView = setView;
    this.#stitcher = new Stitcher({
      message: (m) => this.#message(m),
      server: (e, stale) => this.#server(e, stale),
    });
  }

  start(): void {
    this.#stream = this.#deps.openStream({
      url: `/api/sessions/${encodeURIComponent(this.sessionId)}/stream`,
      onFrame: (frame) => {
        const e = decodeFrame(frame);
        if (e !== undefined) this.#stitcher.push(e);
      },
      onOpen: ({ reconnect }) => {
        if (!reconnect) void this.#load();
      },
      onStatus: (connection) => this.#setView({ connection }),
      onClosed: ({ status }) => {
        if (status === 401) notifyUnauthorized();
        this.#setView({ loading: false, error: status === 404 ? "This session does not exist, or you cannot see it." : `The stream was refused (${status}).` });
      },
    });
  }

  close(): void {
    this.#closed = true;
    this.#loadAbort?.abort();
    this.#stream?.close();
  }

  /** After the network comes back: reconnect at once instead of waiting out the back-off. */
  reconnectNow(): void {
    this.#stream?.reconnectNow();
  }

  /** Credentials were fixed elsewhere (or the user says so): unlock the composer. */
  unlockAuth(): void {
    this.#reducer.unlockAuth();
    this.#markDirty();
  }

  /** Removes a pending approval at once after the user decided (the server confirms with approval_resolved). */
  dropApproval(toolCallId: string): void {
    dropApproval(this.#setView, toolCallId);
  }

  async #load(): Promise<void> {
    if (this.#closed) return;
    this.#loadAbort?.abort();
    const ctrl = new AbortController();
    this.#loadAbort = ctrl;
    this.#setView({ loading: true, goal: undefined });
    this.#seenRound = undefined;
    this.#deps.fetchGoal(this.sessionId, ctrl.signal).then(
      (goal) => {
        if (goal !== undefined && !ctrl.signal.aborted && !this.#closed) this.#goal({ type: "snapshot", goal });
      },
      () => undefined,
    );
    let history: SessionHistory;
    try {
      history = await this.#deps.fetchHistory(this.sessionId, ctrl.signal, { tailLimit: HISTORY_PAGE });
    } catch (e) {
      if (ctrl.signal.aborted || this.#closed) return;
      this.#setView({ loading: false, error: errorText(e) });
      return;
    }
    if (ctrl.signal.aborted || this.#closed) return;
    this.#attempts += 1;
    const cursor = history.live?.cursor ?? history.cursor ?? undefined;
    this.#reducer = new StreamReducer();
    this.#log = [];
    this.#older = [];
    this.#oldestPosition = history.tracePosition ?? null;
    this.#setView({ approvals: history.pendingApprovals, hasOlder: history.hasMore === true });
    // The history's task state is of the history's instant: it is applied right after the
    // history, so the buffered events past its cursor (a task that ended, or one that began,
    // while the history was on its way) have the last word.
    const state: TaskState = history.state ?? (history.live ? "running" : "idle");
    const atCursor = (): void => {
      this.#setView({ taskState: state });
      if (state === "idle") this.#endTask();
    };
    const outcome = this.#stitcher.seed(
      { messages: history.messages, fragments: history.live?.fragments ?? [], cursor },
      { lastAttempt: this.#attempts >= MAX_SEED_ATTEMPTS, atCursor },
    );
    if (outcome === "retry") {
      void this.#load();
      return;
    }
    this.#attempts = 0;
    this.#setView({ loading: false, error: undefined });
    this.#flush();
  }

  #resync(): void {
    this.#stitcher.reset();
    this.#setView({ approvals: [] });
    void this.#load();
  }

  /** Fetches the page before the oldest loaded message and puts it in front of the view. */
  async loadOlder(): Promise<void> {
    const before = this.#oldestPosition;
    if (before === null || this.view.loadingOlder || !this.#stitcher.live) return;
    this.#setView({ loadingOlder: true });
    try {
      const page = await this.#deps.fetchHistory(this.sessionId, new AbortController().signal, { before, limit: HISTORY_PAGE });
      if (this.#closed || before !== this.#oldestPosition) return;
      this.#older = [...page.messages, ...this.#older];
      this.#oldestPosition = page.tracePosition ?? null;
      const reducer = new StreamReducer();
      reducer.applyAll(this.#older);
      for (const entry of this.#log) {
        if (entry === "end") reducer.endTask();
        else reducer.apply(entry);
      }
      this.#reducer = reducer;
      this.#setView({ hasOlder: page.hasMore === true && page.tracePosition !== null, loadingOlder: false });
      this.#flush();
    } catch (e) {
      this.#setView({ loadingOlder: false, error: errorText(e) });
    }
  }

  #message(m: OmniMessage): void {
    this.#log.push(m);
    this.#reducer.apply(m);
    this.#markDirty();
  }

  #endTask(): void {
    this.#log.push("end");
    this.#reducer.endTask();
  }

  #server(e: ServerEvent, stale: boolean): void {
    switch (applySessionEvent(e, stale, this.view, this.#setView)) {
      case "end_task":
        this.#endTask();
        this.#markDirty();
        return;
      case "resync":
        this.#resync();
        return;
      case "unlock_auth":
        this.unlockAuth();
        return;
      case undefined:
        return;
    }
  }

  #goal(u: GoalUpdate): void {
    applyGoal(this.view, this.#setView, u);
  }

  #markDirty(): void {
    if (this.#flushQueued || !this.#stitcher.live) return;
    this.#flushQueued = true;
    this.#deps.schedule(() => {
      this.#flushQueued = false;
      this.#flush();
    });
  }

  /**
   * The store's copy of a reducer row. `reconcile` writes into the objects the store holds,
   * and the reducer shares pieces between its rows and its own state (token counters, the
   * zero constant), so the store must never hold the reducer's objects. Rows are immutable,
   * so one copy per row object is enough: only rows that changed since the last flush are
   * copied.
   */
  #ownCopy(item: ViewItem): ViewItem {
    let copy = this.#copies.get(item);
    if (copy === undefined) {
      copy = structuredClone(item);
      this.#copies.set(item, copy);
    }
    return copy;
  }

  #flush(): void {
    if (this.#closed) return;
    const items = this.#reducer.items();
    const { authLocked, authMessage, goalRound } = this.#reducer;
    if (goalRound !== undefined && goalRound !== this.#seenRound && goalRound.round !== undefined) {
      this.#goal({ type: "round", round: goalRound.round, used: goalRound.used ?? 0, budget: goalRound.budget });
    }
    this.#seenRound = goalRound;
    const goalRunning = goalRound !== undefined;
    if (items === this.#published && this.view.authLocked === authLocked && this.view.authMessage === authMessage && this.view.goalRunning === goalRunning) return;
    this.#published = items;
    batch(() => {
      this.#setView("items", reconcile(items.map((item) => this.#ownCopy(item)), { key: "id" }));
      this.#setView({ authLocked, authMessage, goalRunning });
    });
  }
}
