/**
 * goal_state: one row per goal a session ran (objective, budget, rounds, tokens used, how it
 * ended), so the web shows a goal's progress without re-reading traces. The trace's
 * `goal_finished` event stays the record; this table is an index of it.
 */
import type { Database } from "better-sqlite3";

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

interface RawGoal {
  id: number;
  session_id: string;
  objective: string;
  status: string;
  budget: number | null;
  used: number;
  rounds: number;
  created_at: number;
  updated_at: number;
}

const toRow = (r: RawGoal): GoalRow => ({
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
  readonly #start;
  readonly #progress;
  readonly #latest;

  constructor(db: Database) {
    this.#start = db.prepare<[string, string, string, string, number | null, number, number]>(
      "INSERT INTO goal_state (session_id, project_id, agent_id, objective, status, budget, used, rounds, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, 0, 0, ?, ?)",
    );
    this.#progress = db.prepare<[string, number, number, number, number]>("UPDATE goal_state SET status = ?, used = ?, rounds = ?, updated_at = ? WHERE id = ?");
    this.#latest = db.prepare<[string], RawGoal>("SELECT * FROM goal_state WHERE session_id = ? ORDER BY id DESC LIMIT 1");
  }

  start(g: { sessionId: string; projectId: string; agentId: string; objective: string; budget: number | null; now: number }): number {
    const r = this.#start.run(g.sessionId, g.projectId, g.agentId, g.objective, g.budget, g.now, g.now);
    return Number(r.lastInsertRowid);
  }

  progress(id: number, status: string, used: number, rounds: number, now: number): void {
    this.#progress.run(status, used, rounds, now, id);
  }

  latest(sessionId: string): GoalRow | undefined {
    const r = this.#latest.get(sessionId);
    return r === undefined ? undefined : toRow(r);
  }
}
