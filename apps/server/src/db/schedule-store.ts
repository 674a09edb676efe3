/**
 * `schedule_state`: the scheduler's run state per schedule file, keyed by (project, agent,
 * file name). The TOML files are the definitions; this table only remembers what happened
 * (which slot ran last, when, how many were missed, why a file is invalid) and the hash of
 * the definition it applies to, so an edited file starts afresh. Deleting a row is always
 * safe: the schedule then behaves as newly seen (it never back-fills old slots).
 */
import type { Database } from "better-sqlite3";

export interface ScheduleStateRow {
  projectId: string;
  agentId: string;
  name: string;
  creatorUserId: string | null;
  startAtMs: number | null;
  defHash: string;
  lastSlotMs: number | null;
  lastFiredAt: number | null;
  firedOnce: boolean;
  missed: number;
  invalidReason: string | null;
}

interface RawRow {
  project_id: string;
  agent_id: string;
  name: string;
  creator_user_id: string | null;
  start_at_ms: number | null;
  def_hash: string | null;
  last_slot_ms: number | null;
  last_fired_at: number | null;
  fired_once: number;
  missed: number;
  invalid_reason: string | null;
}

function toRow(r: RawRow): ScheduleStateRow {
  return {
    projectId: r.project_id,
    agentId: r.agent_id,
    name: r.name,
    creatorUserId: r.creator_user_id,
    startAtMs: r.start_at_ms,
    defHash: r.def_hash ?? "",
    lastSlotMs: r.last_slot_ms,
    lastFiredAt: r.last_fired_at,
    firedOnce: r.fired_once === 1,
    missed: r.missed,
    invalidReason: r.invalid_reason,
  };
}

export class ScheduleStore {
  readonly #get;
  readonly #forAgent;
  readonly #put;
  readonly #delete;

  constructor(db: Database) {
    this.#get = db.prepare<[string, string, string], RawRow>("SELECT * FROM schedule_state WHERE project_id = ? AND agent_id = ? AND name = ?");
    this.#forAgent = db.prepare<[string, string], RawRow>("SELECT * FROM schedule_state WHERE project_id = ? AND agent_id = ? ORDER BY name");
    this.#put = db.prepare<[string, string, string, string | null, number | null, string, number | null, number | null, number, number, string | null]>(
      `INSERT INTO schedule_state (project_id, agent_id, name, creator_user_id, start_at_ms, def_hash, last_slot_ms, last_fired_at, fired_once, missed, invalid_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(project_id, agent_id, name) DO UPDATE SET
         creator_user_id = excluded.creator_user_id, start_at_ms = excluded.start_at_ms, def_hash = excluded.def_hash,
         last_slot_ms = excluded.last_slot_ms, last_fired_at = excluded.last_fired_at, fired_once = excluded.fired_once,
         missed = excluded.missed, invalid_reason = excluded.invalid_reason`,
    );
    this.#delete = db.prepare<[string, string, string]>("DELETE FROM schedule_state WHERE project_id = ? AND agent_id = ? AND name = ?");
  }

  get(projectId: string, agentId: string, name: string): ScheduleStateRow | undefined {
    const r = this.#get.get(projectId, agentId, name);
    return r === undefined ? undefined : toRow(r);
  }

  forAgent(projectId: string, agentId: string): ScheduleStateRow[] {
    return this.#forAgent.all(projectId, agentId).map(toRow);
  }

  put(s: ScheduleStateRow): void {
    this.#put.run(s.projectId, s.agentId, s.name, s.creatorUserId, s.startAtMs, s.defHash, s.lastSlotMs, s.lastFiredAt, s.firedOnce ? 1 : 0, s.missed, s.invalidReason);
  }

  delete(projectId: string, agentId: string, name: string): void {
    this.#delete.run(projectId, agentId, name);
  }
}
