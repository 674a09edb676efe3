/**
 * Scheduler: runs the agents' `agent_state/schedule/*.toml` files (SPEC §6, §9).
 *
 * Every tick (30 s on the injected ticker; `tick()` is also callable, and ticks never
 * overlap) it re-reads every schedule file of every agent of every project, so the files
 * stay the definition and edits take effect without a restart. Per file, with its state in
 * `schedule_state` (db/schedule-store.ts):
 * - a file whose text changed (definition hash) starts afresh;
 * - a file that does not parse is recorded with `invalid_reason` and skipped, never fatal;
 * - disabled schedules do nothing;
 * - the newest slot at or before now runs once, if it is no older than `GRACE_MS`: slots
 *   that passed while the server was down, or before the schedule was first seen, are
 *   counted as missed and never back-filled;
 * - a run posts `[scheduled_task]` (name, slot, period) around the prompt as a user text
 *   with `sender: "server"`: into `session_id` when the file names one (busy ⇒ queued as a
 *   follow-up, at most once: while one is queued, further slots are missed), or into a new
 *   session (`source: "schedule"`, model and workspace from the file or the defaults);
 * - users who can see the project get `schedule_fired` / `schedule_queued` on /api/events.
 * A run that cannot start (the session is gone, the model is missing) is kept as the
 * schedule's `lastError` until the next successful run; the schedule itself stays valid.
 * States of deleted files are removed.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentPaths, listSchedules, projectPaths } from "@penguin/core";
import { formatFields, wrapMarker } from "@penguin/omnimessage";
import type { ScheduleStateRow } from "../db/schedule-store.js";
import type { Stores } from "../db/stores.js";
import { JUST_CREATED } from "../services/session-trace-info.js";
import { sessionView } from "../services/session-view.js";
import { agentIdsOnDisk } from "../services/trace-files.js";
import { latestSlot, nextSlot, parseSchedule, slotsBetween, type ScheduleDefinition } from "../services/schedule-definition.js";
import type { Ticker } from "./clock.js";
import type { SessionManager } from "./session-manager.js";
import type { UserEventHub } from "./user-events.js";

export const SCHEDULER_TICK_MS = 30_000;
/** A slot this late still runs; older ones are missed (no back-fill). */
export const GRACE_MS = 90_000;

export interface SchedulerDeps {
  root: string;
  stores: Stores;
  sessions: SessionManager;
  userEvents: UserEventHub;
  now: () => number;
  ticker: Ticker;
  report(error: unknown): void;
}

export interface ScheduleStatus {
  name: string;
  enabled: boolean;
  period: string | null;
  valid: boolean;
  invalidReason: string | null;
  lastFiredAt: number | null;
  lastSlotMs: number | null;
  nextAt: number | null;
  missed: number;
  lastError: string | null;
}

export interface TickReport {
  fired: string[];
  queued: string[];
  missed: string[];
}

export class Scheduler {
  readonly #deps: SchedulerDeps;
  #stop: (() => void) | undefined;
  #ticking: Promise<TickReport> | undefined;
  /** schedule key → the follow-up it queued in a busy session. */
  readonly #queued = new Map<string, { sessionId: string; followUpId: string }>();
  readonly #errors = new Map<string, string>();

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#stop ??= this.#deps.ticker.every(SCHEDULER_TICK_MS, () => void this.tick());
  }

  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  /** One pass over every schedule file. Concurrent calls share the pass in progress. */
  tick(): Promise<TickReport> {
    this.#ticking ??= this.#pass().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  /**
   * The schedules of one agent with their run state, for the list route. `enabled` and
   * `period` are read tolerantly (core's summary) so an invalid file still shows them.
   */
  async status(projectId: string, agentId: string): Promise<ScheduleStatus[]> {
    const now = this.#deps.now();
    const summaries = new Map((await listSchedules(agentPaths(this.#deps.root, projectId, agentId).scheduleDir)).map((s) => [s.name, s]));
    return this.#files(projectId, agentId).map(({ name, text }) => {
      const parsed = parseSchedule(text);
      const summary = summaries.get(name);
      const state = this.#deps.stores.schedules.get(projectId, agentId, name);
      const current = state !== undefined && state.defHash === hashOf(text) ? state : undefined;
      return {
        name,
        enabled: parsed.ok ? parsed.def.enabled : (summary?.enabled ?? false),
        period: parsed.ok ? (parsed.def.period ?? null) : (summary?.period ?? null),
        valid: parsed.ok,
        invalidReason: parsed.ok ? null : parsed.reason,
        lastFiredAt: current?.lastFiredAt ?? null,
        lastSlotMs: current?.lastSlotMs ?? null,
        nextAt: parsed.ok && parsed.def.enabled ? (nextSlot(parsed.def, now) ?? null) : null,
        missed: current?.missed ?? 0,
        lastError: this.#errors.get(keyOf(projectId, agentId, name)) ?? null,
      };
    });
  }

  async #pass(): Promise<TickReport> {
    const report: TickReport = { fired: [], queued: [], missed: [] };
    // Servers sharing one PostgreSQL: only the holder of the duty fires schedules (db/facts-db.ts).
    if (!this.#deps.stores.facts.holdsDuty("scheduler")) return report;
    for (const project of this.#deps.stores.projects.all()) {
      for (const agentId of agentIdsOnDisk(projectPaths(this.#deps.root, project.projectId))) {
        const seen = new Set<string>();
        for (const file of this.#files(project.projectId, agentId)) {
          seen.add(file.name);
          try {
            await this.#visit(project.projectId, project.ownerUserId, agentId, file.name, file.text, report);
          } catch (error) {
            this.#deps.report(error);
          }
        }
        for (const row of this.#deps.stores.schedules.forAgent(project.projectId, agentId)) {
          if (!seen.has(row.name)) this.#deps.stores.schedules.delete(project.projectId, agentId, row.name);
        }
      }
    }
    return report;
  }

  async #visit(projectId: string, ownerUserId: string, agentId: string, name: string, text: string, report: TickReport): Promise<void> {
    const { stores, now: clock } = this.#deps;
    const now = clock();
    const hash = hashOf(text);
    const parsed = parseSchedule(text);
    const known = stores.schedules.get(projectId, agentId, name);
    const state: ScheduleStateRow =
      known !== undefined && known.defHash === hash
        ? known
        : { projectId, agentId, name, creatorUserId: ownerUserId, startAtMs: null, defHash: hash, lastSlotMs: null, lastFiredAt: null, firedOnce: false, missed: 0, invalidReason: null };
    if (!parsed.ok) {
      stores.schedules.put({ ...state, invalidReason: parsed.reason });
      return;
    }
    const def = parsed.def;
    state.invalidReason = null;
    state.startAtMs = def.startAtMs;
    const slot = def.enabled ? latestSlot(def, now) : undefined;
    if (slot === undefined || (state.lastSlotMs !== null && slot <= state.lastSlotMs)) {
      stores.schedules.put(state);
      return;
    }
    const skipped = state.lastSlotMs === null ? 0 : slotsBetween(def, state.lastSlotMs, slot);
    state.missed += skipped;
    state.lastSlotMs = slot;
    const label = `${projectId}/${agentId}/${name}`;
    if (now - slot > GRACE_MS) {
      state.missed += 1;
      stores.schedules.put(state);
      report.missed.push(label);
      return;
    }
    stores.schedules.put(state);
    const outcome = await this.#run(projectId, agentId, name, def, slot);
    if (outcome === "missed") {
      state.missed += 1;
      report.missed.push(label);
    } else if (outcome !== "failed") {
      state.lastFiredAt = now;
      state.firedOnce = true;
      (outcome === "queued" ? report.queued : report.fired).push(label);
    }
    stores.schedules.put(state);
  }

  /** Posts one run; what happened to it. */
  async #run(projectId: string, agentId: string, name: string, def: ScheduleDefinition, slot: number): Promise<"fired" | "queued" | "missed" | "failed"> {
    const { stores, sessions, userEvents } = this.#deps;
    const key = keyOf(projectId, agentId, name);
    const fields: Record<string, string> = { name, scheduled_for: new Date(slot).toISOString() };
    if (def.period !== undefined) fields.period = def.period;
    const text = wrapMarker("scheduled_task", `${formatFields(fields)}\n\n${def.prompt}`);
    const input = [{ type: "text" as const, text }];
    try {
      let row;
      if (def.target.kind === "session") {
        row = stores.sessions.get(def.target.sessionId);
        if (row === undefined || row.projectId !== projectId || row.agentId !== agentId) throw new Error(`session ${def.target.sessionId} does not exist in this agent`);
        const pending = this.#queued.get(key);
        if (pending !== undefined && sessions.isQueued(pending.sessionId, pending.followUpId)) return "missed";
      } else {
        const created = await sessions.create({ projectId, agentId, provider: def.target.provider, modelId: def.target.modelId, workspace: def.target.workspace, source: "schedule" });
        row = created.row;
        userEvents.toProject(projectId, { type: "session_created", sessionId: row.sessionId, session: sessionView(row, created.hub, { ...JUST_CREATED, source: "schedule", client: "schedule" }), source: "schedule" });
      }
      const accepted = await sessions.startTask(row, { input, queueIfBusy: true, thinkingLevel: undefined, sender: "server" });
      this.#errors.delete(key);
      const event = { projectId, agentId, name, sessionId: row.sessionId, slot };
      if (accepted.status === "queued") {
        this.#queued.set(key, { sessionId: row.sessionId, followUpId: accepted.followUpId });
        userEvents.toProject(projectId, { type: "schedule_queued", ...event, followUpId: accepted.followUpId });
        return "queued";
      }
      this.#queued.delete(key);
      userEvents.toProject(projectId, { type: "schedule_fired", ...event });
      return "fired";
    } catch (error) {
      this.#errors.set(key, error instanceof Error ? error.message : String(error));
      return "failed";
    }
  }

  #files(projectId: string, agentId: string): { name: string; text: string }[] {
    const dir = agentPaths(this.#deps.root, projectId, agentId).scheduleDir;
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith(".toml") && !e.name.startsWith("."))
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
    const out: { name: string; text: string }[] = [];
    for (const file of names) {
      try {
        out.push({ name: file.slice(0, -".toml".length), text: readFileSync(join(dir, file), "utf8") });
      } catch {
        continue;
      }
    }
    return out;
  }
}

function keyOf(projectId: string, agentId: string, name: string): string {
  return `${projectId}/${agentId}/${name}`;
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
