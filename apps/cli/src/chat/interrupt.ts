/**
 * What Ctrl-C does in the chat, as one pure decision (SPEC §8): it undoes the most
 * immediate thing first. A pending approval is denied; else the running task is aborted;
 * else a half-typed line is cleared; else the chat asks for confirmation, and a second
 * Ctrl-C right after exits. Any other input disarms the exit.
 */
export interface InterruptState {
  approvalPending: boolean;
  taskRunning: boolean;
  lineHasText: boolean;
  exitArmed: boolean;
}

export type InterruptAction = "deny-approval" | "abort-task" | "clear-line" | "confirm-exit" | "exit";

export function interruptAction(s: InterruptState): InterruptAction {
  if (s.approvalPending) return "deny-approval";
  if (s.taskRunning) return "abort-task";
  if (s.lineHasText) return "clear-line";
  return s.exitArmed ? "exit" : "confirm-exit";
}
