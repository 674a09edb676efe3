/**
 * The session row as a fold of its trace events: `foldSession(row, event)` is pure, so the
 * projection, its tests and a rebuild all reach the same row from the same events.
 *
 * What a row says, and where it comes from:
 * - model pair, workspace, source, client: the file's `session_meta` (the latest file wins: a
 *   compaction starts a new file with the same invariants; `source` is `user` unless the
 *   meta says `subagent` or `schedule`; `client`, the program that created the session, is
 *   null for traces written before it was recorded);
 * - title: the first user-typed text, on one line, cut to 80 characters;
 * - created / last event: the first and latest event times seen;
 * - status: `running` from a request's start until it ends; then `done`, `failed` or
 *   `aborted` by how the last request ended, or by an `abort` (its reason says whether the user
 *   interrupted or the run was stopped by a failure); a request that will be retried
 *   keeps it `running`; `empty` until the first request;
 * - counts: tasks (user-typed texts), requests (`request_begin`), tool calls, and the
 *   tokens of every `token_usage`.
 * - session facts, as the trace records them: approval mode and thinking level (the last
 *   `settings_changed` naming them: the opening one a session is created with, then every
 *   change), whether its sandboxed commands may use the network (`settings_changed
 *   {sandbox_network}`), archived and since when (`session_archived`, its event time), the
 *   fork origin (`forked_from`), its latest goal (`goal_started`, then `goal_finished`), and
 *   how many follow-up tasks wait in its host's queue (`followup_queued` less `followup_dequeued`).
 *   The server shows these from here for sessions it has not loaded; a rebuild from the
 *   traces gives every one of them back.
 * The parent of a subagent session is recorded by its parent's `subagent` event, in a table
 * of its own (`sessions_links`), so the order the two traces are read in does not matter.
 */
import type { TraceEvent } from "@penguin/projections-runner";

export type SessionStatus = "empty" | "running" | "done" | "failed" | "aborted";
/** Who started the session: a person (CLI, web or SDK), a parent agent, a schedule, or a replay of another session. */
export type SessionSource = "user" | "subagent" | "schedule" | "replay";

export interface SessionRow {
  session_id: string;
  project_id: string;
  agent_id: string;
  title: string | null;
  /** 1 when the title was set by a person or the titler (`session_title`), not the first prompt. */
  title_set: number;
  /** 1 while archived (`session_archived`). */
  archived: number;
  /** Event time of the `session_archived` that archived it; null while not archived. */
  archived_at: number | null;
  /** The last recorded approval mode (`settings_changed`), null when the trace records none. */
  approval_mode: string | null;
  /** The last recorded thinking level (`settings_changed`). */
  thinking_level: string | null;
  /** 1 when the session's sandboxed commands may use the network (`settings_changed`). */
  sandbox_network: number;
  /** The latest goal (`goal_started`): objective, budget (-1 = none), start time. */
  goal_objective: string | null;
  goal_budget: number | null;
  goal_started_at: number | null;
  /** `active` from `goal_started` until its `goal_finished` names the outcome. */
  goal_status: string | null;
  goal_rounds: number | null;
  goal_tokens_used: number | null;
  goal_updated_at: number | null;
  /** Follow-up tasks queued and not yet started, recalled or handed back. */
  followups_pending: number;
  /** The session this one was forked from, and where (`forked_from`: `<session>@NNN:LLLLLL`). */
  forked_from: string | null;
  provider: string | null;
  model_id: string | null;
  workspace: string | null;
  source: SessionSource;
  /** The program that created the session (session_meta `client`); null for traces from before it was recorded. */
  client: string | null;
  created_at: number;
  last_event_at: number;
  status: SessionStatus;
  tasks: number;
  requests: number;
  tool_calls: number;
  tokens: number;
  files: number;
}

export const TITLE_MAX = 80;

export function emptySession(e: TraceEvent): SessionRow {
  return {
    session_id: e.sessionId,
    project_id: e.projectId,
    agent_id: e.agentId,
    title: null,
    title_set: 0,
    archived: 0,
    archived_at: null,
    approval_mode: null,
    thinking_level: null,
    sandbox_network: 0,
    goal_objective: null,
    goal_budget: null,
    goal_started_at: null,
    goal_status: null,
    goal_rounds: null,
    goal_tokens_used: null,
    goal_updated_at: null,
    followups_pending: 0,
    forked_from: null,
    provider: null,
    model_id: null,
    workspace: null,
    source: "user",
    client: null,
    created_at: e.ts,
    last_event_at: e.ts,
    status: "empty",
    tasks: 0,
    requests: 0,
    tool_calls: 0,
    tokens: 0,
    files: e.fileIndex,
  };
}

function titleOf(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= TITLE_MAX ? one : `${one.slice(0, TITLE_MAX - 1).trimEnd()}…`;
}

export function foldSession(row: SessionRow | undefined, e: TraceEvent): SessionRow {
  const next = row === undefined ? emptySession(e) : { ...row };
  foldSessionInto(next, e);
  return next;
}

/**
 * `foldSession` in place: changes `next`, the caller's own working copy (the projection folds
 * a batch into one copy per session instead of allocating a new row for every event).
 */
export function foldSessionInto(next: SessionRow, e: TraceEvent): void {
  next.created_at = Math.min(next.created_at, e.ts);
  next.last_event_at = Math.max(next.last_event_at, e.ts);
  next.files = Math.max(next.files, e.fileIndex);
  const m = e.message;
  if (m.type === "session_meta") {
    next.provider = m.payload.provider;
    next.model_id = m.payload.model_id;
    next.workspace = m.payload.workspace;
    next.source = m.payload.source ?? "user";
    if (m.payload.client !== undefined) next.client = m.payload.client;
    return;
  }
  const p = m.payload;
  switch (p.type) {
    case "text":
      if (p.role === "user" && (p.sender === undefined || p.sender === "user")) {
        next.tasks += 1;
        if (next.title === null && next.title_set === 0 && p.text.trim() !== "") next.title = titleOf(p.text);
      }
      return;
    case "tool_call":
      next.tool_calls += 1;
      next.status = "running";
      return;
    case "request_begin":
      next.requests += 1;
      next.status = "running";
      return;
    case "request_end":
      if (p.retry_in_ms !== undefined) next.status = "running";
      else if (p.status === "completed") next.status = "done";
      else if (p.status === "aborted") next.status = "aborted";
      else next.status = "failed";
      return;
    case "abort":
      // The engine writes `abort` both for a user's interrupt ("aborted…") and for a run it
      // had to stop (a request that failed for good, a failed compaction).
      next.status = p.reason === undefined || p.reason.startsWith("aborted") ? "aborted" : "failed";
      return;
    case "token_usage":
      next.tokens += p.request.total;
      return;
    case "session_title":
      next.title = titleOf(p.title);
      next.title_set = 1;
      return;
    case "session_archived":
      if (p.archived && next.archived === 0) next.archived_at = e.ts;
      if (!p.archived) next.archived_at = null;
      next.archived = p.archived ? 1 : 0;
      return;
    case "settings_changed":
      if (p.approval_mode !== undefined) next.approval_mode = p.approval_mode;
      if (p.thinking_level !== undefined) next.thinking_level = p.thinking_level;
      if (p.sandbox_network !== undefined) next.sandbox_network = p.sandbox_network ? 1 : 0;
      return;
    case "goal_started":
      next.goal_objective = p.objective;
      next.goal_budget = p.budget;
      next.goal_started_at = e.ts;
      next.goal_status = "active";
      next.goal_rounds = 0;
      next.goal_tokens_used = 0;
      next.goal_updated_at = e.ts;
      return;
    case "followup_queued":
      next.followups_pending += 1;
      return;
    case "followup_dequeued":
      next.followups_pending = Math.max(0, next.followups_pending - 1);
      return;
    case "goal_finished":
      if (next.goal_objective === null) return;
      next.goal_status = p.outcome;
      next.goal_rounds = p.rounds;
      next.goal_tokens_used = p.tokens_used;
      next.goal_updated_at = e.ts;
      return;
    case "forked_from":
      next.forked_from = `${p.session_id}@${p.at}`;
      return;
    default:
      return;
  }
}
