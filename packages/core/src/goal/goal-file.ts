/**
 * GOAL.yaml: the goal's state as a file in the session's scratchpad.
 *
 * The harness writes `{objective, status: active}` once when the goal starts; from then on
 * only the model edits it, with its normal file tools, setting `status` to `complete` or
 * `blocked`. Between rounds the harness reads `status`: anything unreadable or unknown
 * counts as `blocked`, so a broken file can never make a goal run forever.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../state/atomic-write.js";

export type GoalStatus = "active" | "complete" | "blocked";

export const GOAL_FILE = "GOAL.yaml";

export function goalFilePath(scratchpadDir: string): string {
  return join(scratchpadDir, GOAL_FILE);
}

export async function writeGoalFile(file: string, objective: string): Promise<string> {
  const { stringify } = await import("yaml");
  const text = stringify({ objective, status: "active" satisfies GoalStatus });
  await writeFileAtomic(file, text);
  return text;
}

export async function readGoalFile(file: string): Promise<{ status: GoalStatus; text: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { status: "blocked", text: "(GOAL.yaml is missing)" };
  }
  const { parse } = await import("yaml");
  try {
    const v: unknown = parse(text);
    const status = typeof v === "object" && v !== null && "status" in v ? v.status : undefined;
    if (status === "active" || status === "complete" || status === "blocked") return { status, text };
  } catch {
    // unreadable: blocked, below
  }
  return { status: "blocked", text };
}
