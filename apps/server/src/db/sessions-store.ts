/**
 * The sessions index: one row per session the server knows, from the web or found in the
 * traces (CLI sessions), holding what the server decided for it: its project and agent, the
 * model pair and workspace chosen when it was created (or read from the first meta of a
 * session found in the traces), approval mode, thinking level, title, archive state, the fork
 * counter, when it was indexed, and whether its sandboxed commands may use the network.
 *
 * What the trace says about a session (its run source, its latest event, its fork origin) is
 * not copied here: it is read from the sessions projection (services/session-trace-info.ts).
 */
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
  forkCount: number;
  createdAt: number;
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
  fork_count: number;
  created_at: number;
  sandbox_network: number;
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
    forkCount: r.fork_count,
    createdAt: r.created_at,
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
  createdAt: number;
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

  #select() {
    return this.#facts.query.selectFrom("sessions as s").selectAll("s");
  }

  get(sessionId: string): SessionRow | undefined {
    const r = this.#get.first(sessionId);
    return r === undefined ? undefined : toRow(r);
  }

  /**
   * Record a session the server created. Its settings are the server's decision and win over
   * a row already there: the trace follower (services/projections.ts) may have indexed the
   * session from its header, with the defaults a CLI session gets (approval mode `allow-all`),
   * in the moment between the header being written and this insert. Ignoring the conflict
   * left a web session asked to `always-ask` running `allow-all`.
   */
  insert(s: NewSession): void {
    const values = {
      provider: s.provider,
      model_id: s.modelId,
      workspace: s.workspace,
      approval_mode: s.approvalMode,
      client: s.client,
      created_at: s.createdAt,
      sandbox_network: s.sandboxNetwork === true ? 1 : 0,
    };
    const q = this.#facts.query
      .insertInto("sessions")
      .values({ session_id: s.sessionId, project_id: s.projectId, agent_id: s.agentId, ...values })
      .onConflict((oc) => oc.column("session_id").doUpdateSet(values));
    this.#facts.run(q);
  }

  /** Index a session found in the traces; settings of a known session are kept. */
  upsertFromTrace(s: { sessionId: string; projectId: string; agentId: string; provider: string; modelId: string; workspace: string; createdAt: number }): void {
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
        created_at: s.createdAt,
      })
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet((eb) => ({
          provider: eb.ref("excluded.provider"),
          model_id: eb.ref("excluded.model_id"),
          workspace: eb.ref("excluded.workspace"),
        })),
      );
    this.#facts.run(q);
  }

  /** Puts back the row of a session restored from the trash, every server-owned field as it was. */
  restore(r: SessionRow): void {
    const values = {
      project_id: r.projectId,
      agent_id: r.agentId,
      provider: r.provider,
      model_id: r.modelId,
      workspace: r.workspace,
      approval_mode: r.approvalMode,
      thinking_level: r.thinkingLevel,
      title: r.title,
      archived_at: r.archivedAt,
      client: r.client,
      fork_count: r.forkCount,
      created_at: r.createdAt,
      sandbox_network: r.sandboxNetwork ? 1 : 0,
    };
    this.#facts.run(this.#facts.query.insertInto("sessions").values({ session_id: r.sessionId, ...values }).onConflict((oc) => oc.column("session_id").doUpdateSet(values)));
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

  delete(sessionId: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("sessions").where("session_id", "=", sessionId));
  }

  idsInProject(projectId: string): string[] {
    return this.#facts.all(this.#facts.query.selectFrom("sessions").select("session_id").where("project_id", "=", projectId)).map((r) => r.session_id);
  }


  /**
   * Every session of one agent, archived or not, newest first by creation. The list's
   * categories and its order by last activity need the trace side (run source, latest event),
   * so services/session-list.ts filters and orders these rows with it.
   */
  ofAgent(projectId: string, agentId: string, archived: boolean | undefined): SessionRow[] {
    let q = this.#select().where("s.project_id", "=", projectId).where("s.agent_id", "=", agentId);
    if (archived !== undefined) q = q.where("s.archived_at", archived ? "is not" : "is", null);
    return this.#facts.all(q.orderBy("s.created_at", "desc").orderBy("s.session_id", "desc")).map(toRow);
  }
}
