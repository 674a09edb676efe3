/**
 * Child: one live child session of a parent, as the parent's subagent tools drive it.
 *
 * - Tasks. `start` runs one task (`handle.run`) in the background of the parent: the tool
 *   that started it waits on it for its yield window (`Subagents.wait`, on the Clock) and may
 *   return while it goes on. One task at a time; the report of the last one is kept (`lastReport`).
 * - Forwarding. Every message of the child gets its `origin` hop here and goes to the sink of
 *   the parent call attached to it (run_subagent / input_subagent / kill_subagent), which puts
 *   it on the parent's stream. With no call attached (the child runs in the background) the
 *   complete messages wait in a bounded buffer for the next call that addresses the child;
 *   partials are dropped (they only serve live rendering; the child's trace has everything).
 * - Stopping. `abortTask` stops the current task and keeps the child for follow-ups (the
 *   parent's interrupt while it waited on the task). `kill` stops it for good and disposes the
 *   handle, which stops every process the child started; it is idempotent.
 *
 * Nothing here throws: a handle that throws ends its task as `failed`.
 */
import { isPartial, withOrigin, type OmniMessage } from "@penguin/omnimessage";
import type { ApproveFn, SubagentHandle } from "../interfaces.js";
import { DETACHED_BUFFER_MESSAGES } from "./limits.js";
import { TaskTracker, type TaskProgress, type TaskReport } from "./task-report.js";

/** Puts one message on the parent's stream; false when that is no longer possible. */
export type ForwardSink = (m: OmniMessage) => boolean;

export type WaitOutcome = "ended" | "window" | "aborted";

interface ActiveRun {
  tracker: TaskTracker;
  ctrl: AbortController;
  done: Promise<TaskReport>;
  /** Settles once the task's first message was forwarded (or the task ended). */
  started: Promise<void>;
  markStarted: () => void;
}

export interface ChildOptions {
  /** Called once per task, when it has ended (killed ones included). */
  onTaskEnd: (child: Child, report: TaskReport) => void;
}

export class Child {
  readonly id: string;
  readonly handle: SubagentHandle;
  readonly startedAt = new Date();
  /** Queue a `[background_task_done]` notice when a task ends unseen (run_in_background). */
  notify = false;
  /** Ordering for releasing idle children: the least recently used goes first. */
  lastUsed = 0;
  #options: ChildOptions;
  #run: ActiveRun | undefined;
  #lastReport: TaskReport | undefined;
  #sink: ForwardSink | undefined;
  #buffer: OmniMessage[] = [];
  #killing: Promise<void> | undefined;
  #turns = 0;
  #tokens = 0;

  constructor(handle: SubagentHandle, options: ChildOptions) {
    this.id = handle.sessionId;
    this.handle = handle;
    this.#options = options;
  }

  get running(): boolean {
    return this.#run !== undefined;
  }

  get killed(): boolean {
    return this.#killing !== undefined;
  }

  /** The report of the last task that ended, if any. */
  get lastReport(): TaskReport | undefined {
    return this.#lastReport;
  }

  /** The running task's progress, if one runs. */
  progress(): TaskProgress | undefined {
    return this.#run?.tracker.progress();
  }

  /** Requests and tokens over every task of the child, the running one included. */
  totals(): { turns: number; tokens: number } {
    const now = this.progress();
    return { turns: this.#turns + (now?.turns ?? 0), tokens: this.#tokens + (now?.tokens ?? 0) };
  }

  /**
   * Start a task. The returned promise settles once its first message (the child's
   * `session_meta`, on its first task) has been forwarded, so a caller that detaches right
   * after still shows the child on the parent's stream.
   */
  start(prompt: string, approve: ApproveFn | undefined, label: string): { ok: true; started: Promise<void> } | { ok: false; error: string } {
    if (this.killed) return { ok: false, error: `subagent ${this.id} has been killed` };
    if (this.#run !== undefined) return { ok: false, error: `subagent ${this.id} is still running a task` };
    let markStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    let settle: (report: TaskReport) => void = () => undefined;
    const done = new Promise<TaskReport>((resolve) => {
      settle = resolve;
    });
    const run: ActiveRun = { tracker: new TaskTracker(label), ctrl: new AbortController(), started, markStarted, done };
    this.#run = run;
    void this.#pump(run, prompt, approve).then(settle);
    return { ok: true, started };
  }

  /** Steering text for the running task, when the handle supports it. */
  steer(text: string): boolean {
    if (this.#run === undefined || this.killed) return false;
    return this.handle.steer?.(text) ?? false;
  }

  /** Route the child's messages to `sink` (flushing what waited meanwhile); returns the detach. */
  attach(sink: ForwardSink): () => void {
    const backlog = this.#buffer;
    this.#buffer = [];
    for (const m of backlog) if (!sink(m)) return () => undefined;
    this.#sink = sink;
    return () => {
      if (this.#sink === sink) this.#sink = undefined;
    };
  }

  /** Settles with the running task's report when it ends; undefined when no task runs. */
  get taskEnded(): Promise<TaskReport> | undefined {
    return this.#run?.done;
  }

  /** Stop the running task (the child stays, idle). Resolves once the task has ended. */
  async abortTask(): Promise<TaskReport | undefined> {
    const run = this.#run;
    if (run === undefined) return undefined;
    run.ctrl.abort();
    return run.done;
  }

  /** Stop the child for good: abort its task, then dispose it. Idempotent; never rejects. */
  kill(): Promise<void> {
    this.#killing ??= (async () => {
      const run = this.#run;
      if (run !== undefined) {
        run.ctrl.abort();
        await run.done;
      }
      try {
        await this.handle.dispose();
      } catch {
        // disposing is best effort; there is no one left to tell
      }
    })();
    return this.#killing;
  }

  async #pump(run: ActiveRun, prompt: string, approve: ApproveFn | undefined): Promise<TaskReport> {
    let error: string | undefined;
    try {
      const input = approve === undefined ? { prompt, signal: run.ctrl.signal } : { prompt, signal: run.ctrl.signal, approve };
      for await (const m of this.handle.run(input)) {
        run.tracker.observe(m);
        this.#forward(withOrigin(m, this.id));
        run.markStarted();
      }
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const report = run.tracker.finish({ killed: this.killed, aborted: run.ctrl.signal.aborted, error });
    this.#turns += report.turns;
    this.#tokens += report.tokens;
    this.#run = undefined;
    this.#lastReport = report;
    run.markStarted();
    this.#options.onTaskEnd(this, report);
    return report;
  }

  #forward(m: OmniMessage): void {
    const sink = this.#sink;
    if (sink !== undefined) {
      if (sink(m)) return;
      this.#sink = undefined;
    }
    if (isPartial(m)) return;
    this.#buffer.push(m);
    if (this.#buffer.length > DETACHED_BUFFER_MESSAGES) this.#buffer.splice(0, this.#buffer.length - DETACHED_BUFFER_MESSAGES);
  }
}
