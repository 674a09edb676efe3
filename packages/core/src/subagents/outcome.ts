/**
 * How a wait on a child's task becomes the tool's result; shared by run_subagent and
 * input_subagent so both answer alike.
 *
 * - `ended`: the header and the child's final answer; a task that failed (or was killed by
 *   another call meanwhile) is a `failed` output. The end is marked seen, so no
 *   `[background_task_done]` notice repeats it.
 * - `window`: the header with the progress so far and a note saying it keeps running.
 * - `aborted` (the parent's call was interrupted): the child's task is stopped before the
 *   call returns, so an interrupted parent leaves nothing running. run_subagent kills the
 *   child (the model never got its id back); input_subagent only stops the task and keeps
 *   the child for follow-ups. The close-out marks the output `aborted`.
 */
import type { ToolResult } from "../environment/tool.js";
import type { Child, WaitOutcome } from "./child.js";
import { headerLine, reportText, stillRunningNote, stoppedNote, type ChildState } from "./result-text.js";
import { Effect } from "effect";
import type { SubagentsShape } from "./subagents.js";

export interface SubagentToolDetails {
  subagentId: string;
  status: ChildState;
  /** Started with run_in_background. */
  background?: boolean;
}

export async function* outcomeResult(
  child: Child,
  outcome: WaitOutcome,
  options: { subagents: SubagentsShape; windowMs: number; onAbort: "kill" | "abort-task" },
): AsyncGenerator<string, ToolResult<SubagentToolDetails>> {
  const id = child.id;
  if (outcome === "aborted") {
    if (options.onAbort === "kill") await Effect.runPromise(options.subagents.stop(child));
    else {
      const report = await child.abortTask();
      if (report !== undefined) report.reported = true;
    }
    const state: ChildState = options.onAbort === "kill" ? "killed" : "aborted";
    yield headerLine(id, state, child.lastReport);
    return { note: stoppedNote(id), details: { subagentId: id, status: state } };
  }
  if (outcome === "window") {
    yield headerLine(id, "running", child.progress());
    return { note: stillRunningNote(id, options.windowMs), details: { subagentId: id, status: "running" } };
  }
  const report = child.lastReport;
  if (report === undefined) {
    yield headerLine(id, "idle");
    return { note: "[the subagent has not run a task yet]", details: { subagentId: id, status: "idle" } };
  }
  report.reported = true;
  yield reportText(id, report);
  const details = { subagentId: id, status: report.status };
  return report.status === "completed" ? { details } : { stopReason: "failed", details };
}
