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
 * A checkpoint that fails (a full disk) is reported once on stderr and skipped: the task
 * goes on, the next boundary tries again.
 */
import { eventMessage, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import type { CheckpointTaken, WorkspaceCheckpoints } from "@penguin/trace";

/** Tools that only read: no checkpoint around them. */
const READ_ONLY_TOOLS = new Set(["read_file", "read_image", "describe_image"]);

export interface CheckpointHook {
  /** Takes the baseline, if the session has none yet, before `call` runs. */
  beforeToolCall(call: ToolCallPayload): void;
  /** The events to record after `call` ended (none when the workspace did not change). */
  afterToolCall(call: ToolCallPayload): OmniMessage[];
  /** The events to record as a task starts, when the workspace changed since the last recorded checkpoint. */
  atTaskStart(): OmniMessage[];
}

const checkpointEvent = (taken: CheckpointTaken, extra: { tool_call_id?: string; reason?: string }): OmniMessage =>
  eventMessage({ type: "workspace_checkpoint", tree: taken.tree, changed: taken.changed, ...extra });

export function checkpointHook(checkpoints: WorkspaceCheckpoints, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): CheckpointHook {
  let warned = false;
  /** Taken and durable, not yet recorded. */
  let baseline: CheckpointTaken | undefined;
  /** A checkpoint is recorded (or the trace named one on resume): changes count from it. */
  let recorded = checkpoints.lastTree !== undefined;
  const guarded = <T>(work: () => T, fallback: T): T => {
    try {
      return work();
    } catch (error) {
      if (!warned) warn(`workspace checkpoint skipped (${error instanceof Error ? error.message : String(error)}); the next tool call tries again`);
      warned = true;
      return fallback;
    }
  };
  const takeRecorded = (extra: { tool_call_id?: string; reason?: string }): OmniMessage[] =>
    guarded(() => {
      const taken = checkpoints.take();
      if (taken === undefined) return [];
      const out = baseline === undefined ? [] : [checkpointEvent(baseline, { reason: "baseline" })];
      baseline = undefined;
      recorded = true;
      return [...out, checkpointEvent(taken, extra)];
    }, []);
  return {
    beforeToolCall: (call) => {
      if (recorded || baseline !== undefined || READ_ONLY_TOOLS.has(call.name)) return;
      baseline = guarded(() => checkpoints.take(), undefined);
    },
    afterToolCall: (call) => (READ_ONLY_TOOLS.has(call.name) ? [] : takeRecorded({ tool_call_id: call.tool_call_id })),
    atTaskStart: () => (recorded ? takeRecorded({ reason: "task_start" }) : []),
  };
}
