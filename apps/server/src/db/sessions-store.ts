/**
 * The sessions index: one row per session the server knows, from the web or found in the
 * traces (CLI sessions), holding what access needs: the project and agent the session is in
 * (its grants follow from them) and when the server indexed it; and the model pair and
 * workspace of its first header, which the routes use to reach its files before anything
 * else is read. Who created it is in its own table (session-creators-store.ts).
 *
 * The session's facts are not here. Its approval mode, thinking level, title, archive state,
 * network allowance, fork origin, goals and client (the program that created it) are what
 * its trace records; the server reads them
 * from the loaded session's fold or from the sessions projection (services/session-trace-info.ts).
 */
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
  createdAt: number;
}

interface RawSession {
  session_id: string;
  project_id: string;
  agent_id: string;
  provider: string | null;
  model_id: string | null;
  workspace: string | null;
  created_at: number;
}

function toRow(r: RawSession): SessionRow {
  return {
    sessionId: r.session_id,
    projectId: r.project_id,
    agentId: r.agent_id,
    provider: r.provider,
    modelId: r.model_id,
    workspace: r.workspace,
    createdAt: r.created_at,
  };
}

export interface NewSession {
  sessionId: string;
  projectId: string;
  agentId: string;
  provider: string;
  modelId: string;
  workspace: string;
  createdAt: number;
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
   * Record a session the server created (a row the trace follower may have made from its
   * header a moment before is updated, not duplicated).
   */
  insert(s: NewSession): void {
    const values = {
      provider: s.provider,
      model_id: s.modelId,
      workspace: s.workspace,
      created_at: s.createdAt,
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

  /** Puts back the row of a session restored from the trash, as it was (its facts are in its trace, restored with it). */
  restore(r: SessionRow): void {
    const values = {
      project_id: r.projectId,
      agent_id: r.agentId,
      provider: r.provider,
      model_id: r.modelId,
      workspace: r.workspace,
      created_at: r.createdAt,
    };
    this.#facts.run(this.#facts.query.insertInto("sessions").values({ session_id: r.sessionId, ...values }).onConflict((oc) => oc.column("session_id").doUpdateSet(values)));
  }

  delete(sessionId: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("sessions").where("session_id", "=", sessionId));
  }

  /** Which of `sessionIds` the index holds: one query per 500 ids, not one per id (a projection pass's changed rows). */
  known(sessionIds: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (let i = 0; i < sessionIds.length; i += 500) {
      const chunk = sessionIds.slice(i, i + 500);
      for (const r of this.#facts.all(this.#facts.query.selectFrom("sessions").select("session_id").where("session_id", "in", chunk))) out.add(r.session_id);
    }
    return out;
  }

  idsInProject(projectId: string): string[] {
    return this.#facts.all(this.#facts.query.selectFrom("sessions").select("session_id").where("project_id", "=", projectId)).map((r) => r.session_id);
  }

  /**
   * Every session of one agent, newest first by creation. The list's categories and its order
   * by last activity need the trace side (run source, archive state, latest event), so
   * services/session-list.ts filters and orders these rows with it.
   */
  ofAgent(projectId: string, agentId: string): SessionRow[] {
    const q = this.#select().where("s.project_id", "=", projectId).where("s.agent_id", "=", agentId);
    return this.#facts.all(q.orderBy("s.created_at", "desc").orderBy("s.session_id", "desc")).map(toRow);
  }
}
