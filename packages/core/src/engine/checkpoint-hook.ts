/**
 * Workspace checkpoints at the engine's tool boundaries (issue 29). After every tool call
 * that may change files (everything but the read-only file and image tools: a command, a
 * subagent or an MCP tool may write anywhere in the workspace), and at each task's start
 * (what changed outside the session, or in a background process, since the last one), the
 * session's `WorkspaceCheckpoints` scans the workspace; when it differs from the last
 * checkpoint, its blobs are durable first and only then is the `workspace_checkpoint` event
 * handed back for the engine to record (traced, not streamed, never in the model's context).
 *
 * The session's first checkpoint (its baseline) is taken right before its first such tool
 * call runs, and recorded only once a checkpoint finds a change, just before that one: a
 * session whose tools never change a file records no checkpoint at all. Records before the
 * baseline line have the baseline's files (nothing had changed them yet).
 *
 * A background command or subagent may write after its tool call ended: the turn boundary that
 * delivers its `[background_task_done]` notice checkpoints too (`atBackgroundDone`), so the
 * parent's trace covers a child's span before the parent answers (a rewind across the span then
 * restores the child's writes; without it they would look like changes made outside the session).
 * A baseline taken but not yet recorded counts at that boundary and at a task's start: the call
 * that took it may have started such background work.
 *
 * After a tool call only the paths a file watch saw change are looked at again (trace's
 * `workspace-watch.ts`: it falls back to a full scan whenever it cannot vouch for its list);
 * the baseline and each task's start scan the whole workspace (the start is the safety net
 * for writes no watch reports). `close` ends the watch when the session ends.
 *
 * A checkpoint that fails (a full disk) is reported once on stderr and skipped: the task
 * goes on, the next boundary tries again.
 */
import { eventMessage, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import type { CheckpointTaken, WorkspaceCheckpoints } from "@penguin/trace";

/** Tools that only read: no checkpoint around them. */
const READ_ONLY_TOOLS = new Set(["read_file", "read_image", "describe_image"]);

export interface CheckpointHook {
  /** Takes the baseline, if the session has none yet, before `call` runs. */
  beforeToolCall(call: ToolCallPayload): Promise<void>;
  /** The events to record after `call` ended (none when the workspace did not change). */
  afterToolCall(call: ToolCallPayload): Promise<OmniMessage[]>;
  /** The events to record as a task starts, when the workspace changed since the last recorded checkpoint. */
  atTaskStart(): Promise<OmniMessage[]>;
  /** The events to record at a turn boundary that delivers background work's notices (it may have written). */
  atBackgroundDone(): Promise<OmniMessage[]>;
  /** Ends the file watch (the session ends). */
  close(): void;
}

const checkpointEvent = (taken: CheckpointTaken, extra: { tool_call_id?: string; reason?: string }): OmniMessage =>
  eventMessage({ type: "workspace_checkpoint", tree: taken.tree, changed: taken.changed, ...extra });

export function checkpointHook(checkpoints: WorkspaceCheckpoints, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): CheckpointHook {
  let warned = false;
  /** Taken and durable, not yet recorded. */
  let baseline: CheckpointTaken | undefined;
  /** A checkpoint is recorded (or the trace named one on resume): changes count from it. */
  let recorded = checkpoints.lastTree !== undefined;
  checkpoints.watch();
  // One checkpoint at a time, in call order: the calls of a batch run side by side, and the
  // baseline must be taken (once) before any of them writes.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };
  const guarded = async <T>(work: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!warned) warn(`workspace checkpoint skipped (${error instanceof Error ? error.message : String(error)}); the next tool call tries again`);
      warned = true;
      return fallback;
    }
  };
  const takeRecorded = (extra: { tool_call_id?: string; reason?: string }, full: boolean): Promise<OmniMessage[]> =>
    guarded(async () => {
      const taken = await checkpoints.takeChanged({ full });
      if (taken === undefined) return [];
      const out = baseline === undefined ? [] : [checkpointEvent(baseline, { reason: "baseline" })];
      baseline = undefined;
      recorded = true;
      return [...out, checkpointEvent(taken, extra)];
    }, []);
  return {
    beforeToolCall: (call) =>
      READ_ONLY_TOOLS.has(call.name)
        ? Promise.resolve()
        : inTurn(async () => {
            if (recorded || baseline !== undefined) return;
            baseline = await guarded(() => checkpoints.takeChanged(), undefined);
          }),
    afterToolCall: (call) => (READ_ONLY_TOOLS.has(call.name) ? Promise.resolve([]) : inTurn(() => takeRecorded({ tool_call_id: call.tool_call_id }, false))),
    atTaskStart: () => inTurn(async () => (recorded || baseline !== undefined ? takeRecorded({ reason: "task_start" }, true) : [])),
    atBackgroundDone: () => inTurn(async () => (recorded || baseline !== undefined ? takeRecorded({ reason: "background_done" }, false) : [])),
    close: () => checkpoints.close(),
  };
}
