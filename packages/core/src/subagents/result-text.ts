/**
 * The texts the subagent tools return to the parent's model, in one place so the three tools
 * word things alike.
 *
 * Every output starts with one header line naming the child and its state, e.g.
 *   [subagent_id: session-…; status: completed; turns: 2; tokens: 1830]
 * followed by the child's final answer (its last assistant text of the task), or a note
 * saying what to do next while it keeps running.
 */
import type { TaskReport } from "./task-report.js";

export type ChildState = TaskReport["status"] | "running" | "idle";

export function headerLine(subagentId: string, state: ChildState, progress?: { turns: number; tokens: number }, detail?: string): string {
  const parts = [`subagent_id: ${subagentId}`, `status: ${state}${detail === undefined ? "" : ` (${detail})`}`];
  if (progress !== undefined) parts.push(`turns: ${progress.turns}`, `tokens: ${progress.tokens}`);
  return `[${parts.join("; ")}]`;
}

/** Header and final answer of an ended task. */
export function reportText(subagentId: string, report: TaskReport): string {
  const detail = report.status === "completed" ? undefined : report.detail;
  const answer = report.answer === undefined || report.answer === "" ? "[the subagent gave no text answer]" : report.answer;
  return `${headerLine(subagentId, report.status, report, detail)}\n${answer}`;
}

export function stillRunningNote(subagentId: string, waitedMs: number): string {
  return `[still running after ${waitedMs} ms; it keeps running in the background. Wait for it or send a follow-up with input_subagent (subagent_id ${subagentId}); stop it with kill_subagent.]`;
}

export function startedInBackgroundNote(subagentId: string): string {
  return `[started in the background as subagent_id ${subagentId}; you will be notified when it finishes. Check on it with input_subagent; stop it with kill_subagent.]`;
}

export function stoppedNote(subagentId: string): string {
  return `[subagent ${subagentId} was stopped because this call was interrupted]`;
}
