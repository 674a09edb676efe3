/**
 * The sessions index: one row per session the server knows, from the web or found in the
 * traces (CLI sessions). Model, workspace and start time come from the trace and can be
 * rebuilt from it; approval mode, thinking level, title and archive state are the server's
 * own settings for the session. The run source (subagent, schedule) is read from the trace
 * meta into the derived `trace_sessions` cache, never stored as a session setting. Whether the
 * session's sandboxed commands may use the network is a server setting too (`sandboxNetwork`).
 */
import { sql } from "kysely";
import { isApprovalMode, isThinkingLevel, type ApprovalMode } from "@penguin/core";
import type { ThinkingLevel } from "@penguin/models";
import type { FactsDb } from "./facts-db.js";

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
  /** The session's sandboxed commands may use the network (allowed by a project owner or the admin). */
  sandboxNetwork: boolean;
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
  sandbox_network: number;
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
    sandboxNetwork: r.sandbox_network === 1,
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
  /** Default false: no network for the session's sandboxed commands. */
  sandboxNetwork?: boolean;
}

export class SessionStore {
  readonly #facts: FactsDb;
  readonly #get;

  constructor(facts: FactsDb) {
    this.#facts = facts;
    // Every session-scoped request looks its session up: compiled once.
    this.#get = facts.prepare(1, (sessionId: string) => this.#select().where("s.session_id", "=", sessionId));
  }

  /** Every session column, and the run source from the derived trace cache. */
  #select() {
    return this.#facts.query.selectFrom("sessions as s").leftJoin("trace_sessions as t", "t.session_id", "s.session_id").selectAll("s").select("t.source as source");
  }

  get(sessionId: string): SessionRow | undefined {
    const r = this.#get.first(sessionId);
    return r === undefined ? undefined : toRow(r);
  }

  insert(s: NewSession): void {
    const q = this.#facts.query
      .insertInto("sessions")
      .orIgnore()
      .values({
        session_id: s.sessionId,
        project_id: s.projectId,
        agent_id: s.agentId,
        provider: s.provider,
        model_id: s.modelId,
        workspace: s.workspace,
        approval_mode: s.approvalMode,
        client: s.client,
        has_trace: s.hasTrace ? 1 : 0,
        created_at: s.createdAt,
        last_active_at: s.lastActiveAt,
        sandbox_network: s.sandboxNetwork === true ? 1 : 0,
      });
    this.#facts.run(q);
  }

  /** Index a session found in the traces; settings of a known session are kept. */
  upsertFromTrace(s: { sessionId: string; projectId: string; agentId: string; provider: string; modelId: string; workspace: string; createdAt: number; lastActiveAt: number }): void {
    const q = this.#facts.query
      .insertInto("sessions")
      .values({
        session_id: s.sessionId,
        project_id: s.projectId,
        agent_id: s.agentId,
        provider: s.provider,
        model_id: s.modelId,
        workspace: s.workspace,
        client: "cli",
        has_trace: 1,
        created_at: s.createdAt,
        last_active_at: s.lastActiveAt,
      })
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet((eb) => ({
          provider: eb.ref("excluded.provider"),
          model_id: eb.ref("excluded.model_id"),
          workspace: eb.ref("excluded.workspace"),
          has_trace: 1,
          last_active_at: sql<number>`max(${eb.ref("sessions.last_active_at")}, ${eb.ref("excluded.last_active_at")})`,
        })),
      );
    this.#facts.run(q);
  }

  /** Counts one more fork of this session; the count never goes down, so fork titles never repeat. */
  nextForkNumber(sessionId: string): number {
    const q = this.#facts.query
      .updateTable("sessions")
      .set((eb) => ({ fork_count: eb("fork_count", "+", 1) }))
      .where("session_id", "=", sessionId)
      .returning("fork_count");
    return this.#facts.first(q)?.fork_count ?? 1;
  }

  setApprovalMode(sessionId: string, mode: ApprovalMode): void {
    this.#facts.run(this.#facts.query.updateTable("sessions").set({ approval_mode: mode }).where("session_id", "=", sessionId));
  }

  setThinkingLevel(sessionId: string, level: ThinkingLevel | null): void {
    this.#facts.run(this.#facts.query.updateTable("sessions").set({ thinking_level: level }).where("session_id", "=", sessionId));
  }

  setTitle(sessionId: string, title: string | null): void {
    this.#facts.run(this.#facts.query.updateTable("sessions").set({ title }).where("session_id", "=", sessionId));
  }

  setArchived(sessionId: string, at: number | null): void {
    this.#facts.run(this.#facts.query.updateTable("sessions").set({ archived_at: at }).where("session_id", "=", sessionId));
  }

  setSandboxNetwork(sessionId: string, allowed: boolean): void {
    this.#facts.run(this.#facts.query.updateTable("sessions").set({ sandbox_network: allowed ? 1 : 0 }).where("session_id", "=", sessionId));
  }

  touch(sessionId: string, at: number): void {
    const q = this.#facts.query
      .updateTable("sessions")
      .set((eb) => ({ last_active_at: sql<number>`max(${eb.ref("last_active_at")}, ${at})` }))
      .where("session_id", "=", sessionId);
    this.#facts.run(q);
  }

  markHasTrace(sessionId: string): void {
    this.#facts.run(this.#facts.query.updateTable("sessions").set({ has_trace: 1 }).where("session_id", "=", sessionId));
  }

  delete(sessionId: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("sessions").where("session_id", "=", sessionId));
  }

  idsInProject(projectId: string): string[] {
    return this.#facts.all(this.#facts.query.selectFrom("sessions").select("session_id").where("project_id", "=", projectId)).map((r) => r.session_id);
  }

  idsWithoutTrace(): string[] {
    return this.#facts.all(this.#facts.query.selectFrom("sessions").select("session_id").where("has_trace", "=", 0)).map((r) => r.session_id);
  }

  /** Sessions of one agent in a category, most recently active first. */
  list(projectId: string, agentId: string, category: SessionCategory, limit: number, offset: number): SessionRow[] {
    const q = this.#select()
      .where("s.project_id", "=", projectId)
      .where("s.agent_id", "=", agentId)
      .where((eb) => {
        switch (category) {
          case "active":
            // A replay is a person's re-run of a recording: listed with their sessions (and marked there).
            return eb.and([eb("s.archived_at", "is", null), eb.or([eb("t.source", "is", null), eb("t.source", "=", "replay")])]);
          case "subagent":
            return eb("t.source", "=", "subagent");
          case "schedule":
            return eb("t.source", "=", "schedule");
          case "archived":
            return eb("s.archived_at", "is not", null);
        }
      })
      .orderBy("s.last_active_at", "desc")
      .orderBy("s.session_id", "desc")
      .limit(limit)
      .offset(offset);
    return this.#facts.all(q).map(toRow);
  }
}
