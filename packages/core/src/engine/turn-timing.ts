/**
 * Where a tool turn's time goes, for whoever asks: named marks published on the
 * `penguin:tool-turn` diagnostics channel (node:diagnostics_channel) at the engine's steps of
 * a task (request sent, tool call complete, approved, checkpoints, command shell ready,
 * spawned, exited, output recorded, task end). Nothing is published (and nothing allocated)
 * unless a subscriber listens, so the marks cost a property read in a session nobody
 * measures. The time is the global `performance`, not node:perf_hooks, which a run would
 * load for nothing. The benchmark's row 22 subscribes to split one tool turn into its phases.
 */
import { channel } from "node:diagnostics_channel";

export const TOOL_TURN_CHANNEL = "penguin:tool-turn";

export type ToolTurnMark =
  | "task-start"
  | "request-sent"
  | "request-end"
  | "call-complete"
  | "approved"
  | "checkpoint-before"
  | "shell-ready"
  | "spawned"
  | "exited"
  | "output"
  | "checkpoint-after"
  | "task-end";

/** What a subscriber receives: the mark and `performance.now()` when it was reached. */
export interface ToolTurnMessage {
  mark: ToolTurnMark;
  at: number;
}

const turnChannel = channel(TOOL_TURN_CHANNEL);

export function markToolTurn(mark: ToolTurnMark): void {
  if (turnChannel.hasSubscribers) turnChannel.publish({ mark, at: performance.now() } satisfies ToolTurnMessage);
}
