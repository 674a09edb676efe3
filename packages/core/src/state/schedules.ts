/**
 * What the system prompt says about scheduled tasks: one summary per `schedule/<name>.toml`
 * (name, enabled, period). The scheduler itself (validation of every field, run state,
 * timing) belongs to the server; this only reads the files, tolerantly. A file that cannot
 * be read is listed with its problem instead of failing the agent: a broken schedule must not
 * stop every session from starting, and the model can then help the user fix it.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "smol-toml";
import { isNotFound, readOptional } from "./fs-utils.js";

export interface ScheduleSummary {
  /** The file name without `.toml`: the schedule's identity. */
  name: string;
  /** `enabled` defaults to false. */
  enabled: boolean;
  /** `30m`, `12h`, `7d`…; absent = a one-shot task. */
  period?: string;
  /** Why the file could not be read, when it could not. */
  problem?: string;
}

export async function listSchedules(scheduleDir: string): Promise<ScheduleSummary[]> {
  let names: string[];
  try {
    names = (await readdir(scheduleDir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith(".toml") && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort();
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
  const out: ScheduleSummary[] = [];
  for (const fileName of names) {
    const text = await readOptional(join(scheduleDir, fileName));
    if (text !== undefined) out.push(summarizeSchedule(fileName.slice(0, -".toml".length), text));
  }
  return out;
}

/** Pure: one schedule file's text → its summary. */
export function summarizeSchedule(name: string, text: string): ScheduleSummary {
  let table: Record<string, unknown>;
  try {
    table = parse(text);
  } catch (e) {
    return { name, enabled: false, problem: `not valid TOML: ${e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e)}` };
  }
  const enabled = table.enabled;
  const period = table.period;
  if (enabled !== undefined && typeof enabled !== "boolean") return { name, enabled: false, problem: "enabled must be true or false" };
  if (period !== undefined && typeof period !== "string") return { name, enabled: false, problem: "period must be text such as \"12h\"" };
  return { name, enabled: enabled === true, ...(period !== undefined ? { period } : {}) };
}
