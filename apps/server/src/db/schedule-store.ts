/**
 * `schedule_state`: the scheduler's run state per schedule file, keyed by (project, agent,
 * file name). The TOML files are the definitions; this table only remembers what happened
 * (which slot ran last, when, how many were missed, why a file is invalid) and the hash of
 * the definition it applies to, so an edited file starts afresh. Deleting a row is always
 * safe: the schedule then behaves as newly seen (it never back-fills old slots).
 */
import type { Selectable } from "kysely";
import type { FactsDb } from "./facts-db.js";
import type { ScheduleStateTable } from "./facts-schema.js";

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

function toRow(r: Selectable<ScheduleStateTable>): ScheduleStateRow {
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
  readonly #facts: FactsDb;

  constructor(facts: FactsDb) {
    this.#facts = facts;
  }

  get(projectId: string, agentId: string, name: string): ScheduleStateRow | undefined {
    const q = this.#facts.query.selectFrom("schedule_state").selectAll().where("project_id", "=", projectId).where("agent_id", "=", agentId).where("name", "=", name);
    const r = this.#facts.first(q);
    return r === undefined ? undefined : toRow(r);
  }

  forAgent(projectId: string, agentId: string): ScheduleStateRow[] {
    const q = this.#facts.query.selectFrom("schedule_state").selectAll().where("project_id", "=", projectId).where("agent_id", "=", agentId).orderBy("name");
    return this.#facts.all(q).map(toRow);
  }

  put(s: ScheduleStateRow): void {
    const q = this.#facts.query
      .insertInto("schedule_state")
      .values({
        project_id: s.projectId,
        agent_id: s.agentId,
        name: s.name,
        creator_user_id: s.creatorUserId,
        start_at_ms: s.startAtMs,
        def_hash: s.defHash,
        last_slot_ms: s.lastSlotMs,
        last_fired_at: s.lastFiredAt,
        fired_once: s.firedOnce ? 1 : 0,
        missed: s.missed,
        invalid_reason: s.invalidReason,
      })
      .onConflict((oc) =>
        oc.columns(["project_id", "agent_id", "name"]).doUpdateSet((eb) => ({
          creator_user_id: eb.ref("excluded.creator_user_id"),
          start_at_ms: eb.ref("excluded.start_at_ms"),
          def_hash: eb.ref("excluded.def_hash"),
          last_slot_ms: eb.ref("excluded.last_slot_ms"),
          last_fired_at: eb.ref("excluded.last_fired_at"),
          fired_once: eb.ref("excluded.fired_once"),
          missed: eb.ref("excluded.missed"),
          invalid_reason: eb.ref("excluded.invalid_reason"),
        })),
      );
    this.#facts.run(q);
  }

  delete(projectId: string, agentId: string, name: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("schedule_state").where("project_id", "=", projectId).where("agent_id", "=", agentId).where("name", "=", name));
  }
}
