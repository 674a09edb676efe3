/**
 * The sessions index: one row per session the server knows, from the web or found in the
 * traces (CLI sessions). Model, workspace and start time come from the trace and can be
 * rebuilt from it; approval mode, thinking level, title and archive state are the server's
 * own settings for the session. The run source (subagent, schedule) is read from the trace
 * meta into the derived `trace_sessions` cache, never stored as a session setting.
 */
import type { Database, Statement } from "better-sqlite3";
import { isApprovalMode, isThinkingLevel, type ApprovalMode } from "@penguin/core";
import type { ThinkingLevel } from "@penguin/models";

export type SessionCategory = "active" | "subagent" | "schedule" | "archived";
export type SessionSource = "subagent" | "schedule";

export interface SessionRow {
  sessionId: string;
  projectId: string;
  agentId: string;
  provider: string | null;
  modelId: string | null;
  workspace: string | null;
  approvalMode: ApprovalMode;
  thinkingLevel: ThinkingLevel | null;
  title: string | null;
  archivedAt: number | null;
  client: "web" | "cli";
  hasTrace: boolean;
  forkCount: number;
  lastActiveAt: number;
  createdAt: number;
  /** From the trace meta (derived cache); null for a session a user started. */
  source: SessionSource | null;
}

interface RawSession {
  session_id: string;
  project_id: string;
  agent_id: string;
  provider: string | null;
  model_id: string | null;
  workspace: string | null;
  approval_mode: string;
  thinking_level: string | null;
  title: string | null;
  archived_at: number | null;
  client: string;
  has_trace: number;
  fork_count: number;
  last_active_at: number;
  created_at: number;
  source: string | null;
}

function toRow(r: RawSession): SessionRow {
  return {
    sessionId: r.session_id,
    projectId: r.project_id,
    agentId: r.agent_id,
    provider: r.provider,
    modelId: r.model_id,
    workspace: r.workspace,
    approvalMode: isApprovalMode(r.approval_mode) ? r.approval_mode : "allow-all",
    thinkingLevel: r.thinking_level !== null && isThinkingLevel(r.thinking_level) ? r.thinking_level : null,
    title: r.title,
    archivedAt: r.archived_at,
    client: r.client === "cli" ? "cli" : "web",
    hasTrace: r.has_trace === 1,
    forkCount: r.fork_count,
    lastActiveAt: r.last_active_at,
    createdAt: r.created_at,
    source: r.source === "subagent" || r.source === "schedule" ? r.source : null,
  };
}

export interface NewSession {
  sessionId: string;
  projectId: string;
  agentId: string;
  provider: string;
  modelId: string;
  workspace: string;
  approvalMode: ApprovalMode;
  client: "web" | "cli";
  hasTrace: boolean;
  createdAt: number;
  lastActiveAt: number;
}

const SELECT = `SELECT s.*, t.source AS source FROM sessions s LEFT JOIN trace_sessions t ON t.session_id = s.session_id`;

const CATEGORY_WHERE: Record<SessionCategory, string> = {
  // A replay is a person's re-run of a recording: listed with their sessions (and marked there).
  active: "s.archived_at IS NULL AND (t.source IS NULL OR t.source = 'replay')",
  subagent: "t.source = 'subagent'",
  schedule: "t.source = 'schedule'",
  archived: "s.archived_at IS NOT NULL",
};

export class SessionStore {
  readonly #get;
  readonly #insert;
  readonly #fromTrace;
  readonly #setMode;
  readonly #setLevel;
  readonly #setTitle;
  readonly #setArchived;
  readonly #touch;
  readonly #markTrace;
  readonly #delete;
  readonly #inProject;
  readonly #withoutTrace;
  readonly #fork;
  readonly #lists: Record<SessionCategory, Statement<[string, string, number, number], RawSession>>;

  constructor(db: Database) {
    this.#get = db.prepare<[string], RawSession>(`${SELECT} WHERE s.session_id = ?`);
    this.#insert = db.prepare<[string, string, string, string, string, string, string, string, number, number, number]>(
      `INSERT OR IGNORE INTO sessions (session_id, project_id, agent_id, provider, model_id, workspace, approval_mode, client, has_trace, created_at, last_active_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#fromTrace = db.prepare<[string, string, string, string, string, string, number, number]>(
      `INSERT INTO sessions (session_id, project_id, agent_id, provider, model_id, workspace, client, has_trace, created_at, last_active_at)
       VALUES (?, ?, ?, ?, ?, ?, 'cli', 1, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET
         provider = excluded.provider, model_id = excluded.model_id, workspace = excluded.workspace, has_trace = 1,
         last_active_at = MAX(sessions.last_active_at, excluded.last_active_at)`,
    );
    this.#setMode = db.prepare<[string, string]>("UPDATE sessions SET approval_mode = ? WHERE session_id = ?");
    this.#setLevel = db.prepare<[string | null, string]>("UPDATE sessions SET thinking_level = ? WHERE session_id = ?");
    this.#setTitle = db.prepare<[string | null, string]>("UPDATE sessions SET title = ? WHERE session_id = ?");
    this.#setArchived = db.prepare<[number | null, string]>("UPDATE sessions SET archived_at = ? WHERE session_id = ?");
    this.#touch = db.prepare<[number, string]>("UPDATE sessions SET last_active_at = MAX(last_active_at, ?) WHERE session_id = ?");
    this.#markTrace = db.prepare<[string]>("UPDATE sessions SET has_trace = 1 WHERE session_id = ?");
    this.#delete = db.prepare<[string]>("DELETE FROM sessions WHERE session_id = ?");
    this.#inProject = db.prepare<[string], { session_id: string }>("SELECT session_id FROM sessions WHERE project_id = ?");
    this.#withoutTrace = db.prepare<[], { session_id: string }>("SELECT session_id FROM sessions WHERE has_trace = 0");
    this.#fork = db.prepare<[string], { fork_count: number }>("UPDATE sessions SET fork_count = fork_count + 1 WHERE session_id = ? RETURNING fork_count");
    const list = (category: SessionCategory) =>
      db.prepare<[string, string, number, number], RawSession>(
        `${SELECT} WHERE s.project_id = ? AND s.agent_id = ? AND ${CATEGORY_WHERE[category]} ORDER BY s.last_active_at DESC, s.session_id DESC LIMIT ? OFFSET ?`,
      );
    this.#lists = { active: list("active"), subagent: list("subagent"), schedule: list("schedule"), archived: list("archived") };
  }

  get(sessionId: string): SessionRow | undefined {
    const r = this.#get.get(sessionId);
    return r === undefined ? undefined : toRow(r);
  }

  insert(s: NewSession): void {
    this.#insert.run(s.sessionId, s.projectId, s.agentId, s.provider, s.modelId, s.workspace, s.approvalMode, s.client, s.hasTrace ? 1 : 0, s.createdAt, s.lastActiveAt);
  }

  /** Index a session found in the traces; settings of a known session are kept. */
  upsertFromTrace(s: { sessionId: string; projectId: string; agentId: string; provider: string; modelId: string; workspace: string; createdAt: number; lastActiveAt: number }): void {
    this.#fromTrace.run(s.sessionId, s.projectId, s.agentId, s.provider, s.modelId, s.workspace, s.createdAt, s.lastActiveAt);
  }

  /** Counts one more fork of this session; the count never goes down, so fork titles never repeat. */
  nextForkNumber(sessionId: string): number {
    return this.#fork.get(sessionId)?.fork_count ?? 1;
  }

  setApprovalMode(sessionId: string, mode: ApprovalMode): void {
    this.#setMode.run(mode, sessionId);
  }

  setThinkingLevel(sessionId: string, level: ThinkingLevel | null): void {
    this.#setLevel.run(level, sessionId);
  }

  setTitle(sessionId: string, title: string | null): void {
    this.#setTitle.run(title, sessionId);
  }

  setArchived(sessionId: string, at: number | null): void {
    this.#setArchived.run(at, sessionId);
  }

  touch(sessionId: string, at: number): void {
    this.#touch.run(at, sessionId);
  }

  markHasTrace(sessionId: string): void {
    this.#markTrace.run(sessionId);
  }

  delete(sessionId: string): void {
    this.#delete.run(sessionId);
  }

  idsInProject(projectId: string): string[] {
    return this.#inProject.all(projectId).map((r) => r.session_id);
  }

  idsWithoutTrace(): string[] {
    return this.#withoutTrace.all().map((r) => r.session_id);
  }

  /** Sessions of one agent in a category, most recently active first. */
  list(projectId: string, agentId: string, category: SessionCategory, limit: number, offset: number): SessionRow[] {
    return this.#lists[category].all(projectId, agentId, limit, offset).map(toRow);
  }
}
