/**
 * What one task of a child came to, read off the child's own message stream.
 *
 * A child task is one `handle.run` (a run_subagent prompt, or an input_subagent follow-up).
 * The parent's model gets back only a summary of it: the final answer (the last complete
 * assistant text of the task), how many requests it took, the tokens they used, and how it
 * ended. Everything here is derived from messages the child streams anyway, so the tracker
 * works for any SubagentHandle, not only ours.
 *
 * How it ended, by priority: `killed` (kill_subagent or dispose) > `aborted` (the parent
 * stopped it) > `failed` (the child's run ended with an `abort` event of its own: a model
 * failure, max_turns, a failed compaction; or the handle threw) > `completed`.
 */
import { isEvent, isModel, type OmniMessage } from "@penguin/omnimessage";

export type TaskStatus = "completed" | "failed" | "aborted" | "killed";

export interface TaskProgress {
  /** Model requests the task has completed so far. */
  turns: number;
  /** Σ request.total over those requests. */
  tokens: number;
  /** The last complete assistant text so far. */
  answer: string | undefined;
}

export interface TaskReport extends TaskProgress {
  status: TaskStatus;
  /** One line: how the task ended. */
  detail: string;
  /** What the task was for (the describing call's `description`, else its prompt). */
  label: string;
  /** The parent's model has seen this end (a tool output carried it, or a notice did). */
  reported: boolean;
}

export class TaskTracker {
  readonly label: string;
  #turns = 0;
  #tokens = 0;
  #answer: string | undefined;
  #abortReason: string | undefined;

  constructor(label: string) {
    this.label = label;
  }

  /** Feed every message the child streams, in order, before origin is added. */
  observe(m: OmniMessage): void {
    if (m.origin !== undefined && m.origin.length > 0) return;
    if (isModel(m, "text") && m.payload.role === "assistant") this.#answer = m.payload.text;
    else if (isEvent(m, "token_usage")) {
      this.#turns += 1;
      this.#tokens += m.payload.request.total;
    } else if (isEvent(m, "abort")) this.#abortReason = m.payload.reason ?? "the run was stopped";
  }

  progress(): TaskProgress {
    return { turns: this.#turns, tokens: this.#tokens, answer: this.#answer };
  }

  /** The report once the run is over. `error` is a throw out of the handle (a bug or a disposed session). */
  finish(how: { killed: boolean; aborted: boolean; error?: string }): TaskReport {
    const base = { ...this.progress(), label: this.label, reported: false };
    if (how.killed) return { ...base, status: "killed", detail: "killed before it finished" };
    if (how.aborted) return { ...base, status: "aborted", detail: "stopped by the parent before it finished" };
    if (how.error !== undefined) return { ...base, status: "failed", detail: `the subagent could not run: ${how.error}` };
    if (this.#abortReason !== undefined) return { ...base, status: "failed", detail: this.#abortReason };
    return { ...base, status: "completed", detail: `finished after ${this.#turns} request(s)` };
  }
}
