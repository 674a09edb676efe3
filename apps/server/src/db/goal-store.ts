/**
 * goal_state: one row per goal a session ran (objective, budget, rounds, tokens used, how it
 * ended), so the web shows a goal's progress without re-reading traces. The trace's
 * `goal_finished` event stays the record; this table is an index of it.
 */
import type { Selectable } from "kysely";
import type { FactsDb } from "./facts-db.js";
import type { GoalStateTable } from "./facts-schema.js";

export interface GoalRow {
  id: number;
  sessionId: string;
  objective: string;
  /** `active` while running, then the goal's outcome. */
  status: string;
  /** Token budget; null = unlimited. */
  budget: number | null;
  used: number;
  rounds: number;
  createdAt: number;
  updatedAt: number;
}

const toRow = (r: Selectable<GoalStateTable>): GoalRow => ({
  id: r.id,
  sessionId: r.session_id,
  objective: r.objective,
  status: r.status,
  budget: r.budget,
  used: r.used,
  rounds: r.rounds,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class GoalStore {
  readonly #facts: FactsDb;

  constructor(facts: FactsDb) {
    this.#facts = facts;
  }

  start(g: { sessionId: string; projectId: string; agentId: string; objective: string; budget: number | null; now: number }): number {
    const q = this.#facts.query
      .insertInto("goal_state")
      .values({ session_id: g.sessionId, project_id: g.projectId, agent_id: g.agentId, objective: g.objective, status: "active", budget: g.budget, used: 0, rounds: 0, created_at: g.now, updated_at: g.now });
    return Number(this.#facts.run(q).lastInsertRowid);
  }

  progress(id: number, status: string, used: number, rounds: number, now: number): void {
    this.#facts.run(this.#facts.query.updateTable("goal_state").set({ status, used, rounds, updated_at: now }).where("id", "=", id));
  }

  latest(sessionId: string): GoalRow | undefined {
    const r = this.#facts.first(this.#facts.query.selectFrom("goal_state").selectAll().where("session_id", "=", sessionId).orderBy("id", "desc").limit(1));
    return r === undefined ? undefined : toRow(r);
  }
}
