/**
 * One schedule file, `agent_state/schedule/<name>.toml` (SPEC §6), read and checked for the
 * scheduler. The file name is the schedule's identity. Fields:
 *
 *   prompt      required text
 *   enabled     default false
 *   start_at    required: a TOML date-time or an ISO text (without an offset: server local time)
 *   period      `30m` / `12h` / `7d` (at least 5 minutes); absent = one run at start_at
 *   end_at      optional, after start_at: no run at or after it
 *   session_id  run in that session, or else a new session per run with
 *   workspace   (absolute path, optional) and provider + model_id (both or neither)
 *
 * The result is a value, never an exception: a file that is not valid is reported with the
 * first problem found (the scheduler records it as `invalid_reason`), because one broken
 * file must not stop the others. Slot arithmetic lives here too, as pure functions.
 */
import { isAbsolute } from "node:path";
import { isSessionId } from "@penguin/core";
import { parse, TomlDate } from "smol-toml";

export const MIN_PERIOD_MS = 5 * 60 * 1000;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

export type ScheduleTarget = { kind: "session"; sessionId: string } | { kind: "new"; workspace?: string; provider?: string; modelId?: string };

export interface ScheduleDefinition {
  prompt: string;
  enabled: boolean;
  startAtMs: number;
  periodMs?: number;
  period?: string;
  endAtMs?: number;
  target: ScheduleTarget;
}

/** A schedule that is not valid: why, the field at fault, and the line for a TOML syntax error. */
export type ParsedSchedule = { ok: true; def: ScheduleDefinition } | { ok: false; reason: string; field?: string; line?: number };

const KNOWN = new Set(["prompt", "enabled", "start_at", "period", "end_at", "session_id", "workspace", "provider", "model_id"]);

function timeOf(value: unknown): number | undefined {
  if (value instanceof TomlDate) {
    if (!value.isValid() || value.isTime()) return undefined;
    return value.isLocal() ? Date.parse(value.toISOString()) : value.getTime();
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === "string") {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

export function periodMs(text: string): number | undefined {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (m === null) return undefined;
  return Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? Number.NaN);
}

const fail = (reason: string, field?: string, line?: number): ParsedSchedule => ({ ok: false, reason, ...(field === undefined ? {} : { field }), ...(line === undefined ? {} : { line }) });

export function parseSchedule(text: string): ParsedSchedule {
  let table: Record<string, unknown>;
  try {
    table = parse(text);
  } catch (e) {
    const line = typeof (e as { line?: unknown }).line === "number" ? (e as { line: number }).line : undefined;
    return fail(`not valid TOML: ${e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e)}`, undefined, line);
  }
  const unknown = Object.keys(table).find((k) => !KNOWN.has(k));
  if (unknown !== undefined) return fail(`unknown field "${unknown}"`, unknown);
  const { prompt, enabled, start_at, period, end_at, session_id, workspace, provider, model_id } = table;
  if (typeof prompt !== "string" || prompt.trim() === "") return fail("prompt is required text", "prompt");
  if (enabled !== undefined && typeof enabled !== "boolean") return fail("enabled must be true or false", "enabled");
  const startAtMs = timeOf(start_at);
  if (startAtMs === undefined) return fail(start_at === undefined ? "start_at is required" : "start_at must be a date-time such as 2026-07-18T09:00:00", "start_at");
  const def: ScheduleDefinition = { prompt, enabled: enabled === true, startAtMs, target: { kind: "new" } };
  if (period !== undefined) {
    const ms = typeof period === "string" ? periodMs(period) : undefined;
    if (ms === undefined) return fail('period must look like "30m", "12h" or "7d"', "period");
    if (ms < MIN_PERIOD_MS) return fail("period must be at least 5m", "period");
    def.periodMs = ms;
    def.period = String(period).trim();
  }
  if (end_at !== undefined) {
    const endAtMs = timeOf(end_at);
    if (endAtMs === undefined) return fail("end_at must be a date-time", "end_at");
    if (endAtMs <= startAtMs) return fail("end_at must be after start_at", "end_at");
    def.endAtMs = endAtMs;
  }
  if (session_id !== undefined) {
    if (typeof session_id !== "string" || !isSessionId(session_id)) return fail("session_id is not a session id", "session_id");
    if (workspace !== undefined || provider !== undefined || model_id !== undefined) return fail("session_id runs in an existing session: leave out workspace, provider and model_id", "session_id");
    def.target = { kind: "session", sessionId: session_id };
    return { ok: true, def };
  }
  if (workspace !== undefined && (typeof workspace !== "string" || !isAbsolute(workspace))) return fail(`workspace must be an absolute path (got ${JSON.stringify(workspace)})`, "workspace");
  if ((provider === undefined) !== (model_id === undefined)) return fail("provider and model_id go together: give both or neither", "provider");
  if (provider !== undefined && (typeof provider !== "string" || typeof model_id !== "string")) return fail("provider and model_id must be text", "provider");
  const target: ScheduleTarget = { kind: "new" };
  if (typeof workspace === "string") target.workspace = workspace;
  if (typeof provider === "string" && typeof model_id === "string") {
    target.provider = provider;
    target.modelId = model_id;
  }
  def.target = target;
  return { ok: true, def };
}

/** The newest slot at or before `now` that may run (before end_at), or undefined. */
export function latestSlot(def: ScheduleDefinition, now: number): number | undefined {
  if (now < def.startAtMs) return undefined;
  let slot = def.startAtMs;
  if (def.periodMs !== undefined) slot += Math.floor((now - def.startAtMs) / def.periodMs) * def.periodMs;
  if (def.endAtMs !== undefined && slot >= def.endAtMs) {
    if (def.periodMs === undefined) return undefined;
    const last = def.startAtMs + Math.floor((def.endAtMs - 1 - def.startAtMs) / def.periodMs) * def.periodMs;
    return last >= def.startAtMs ? last : undefined;
  }
  return slot;
}

/** The next slot after `now`, or undefined when none is left. */
export function nextSlot(def: ScheduleDefinition, now: number): number | undefined {
  let next: number;
  if (now < def.startAtMs) next = def.startAtMs;
  else if (def.periodMs === undefined) return undefined;
  else next = def.startAtMs + (Math.floor((now - def.startAtMs) / def.periodMs) + 1) * def.periodMs;
  return def.endAtMs !== undefined && next >= def.endAtMs ? undefined : next;
}

/** How many slots lie strictly between two slots of the same schedule. */
export function slotsBetween(def: ScheduleDefinition, after: number, before: number): number {
  if (def.periodMs === undefined || before <= after) return 0;
  return Math.max(0, Math.round((before - after) / def.periodMs) - 1);
}
