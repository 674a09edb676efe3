/**
 * Workspace checkpoints at the engine's tool boundaries (issue 29). After every tool call
 * that may change files (everything but the read-only file and image tools: a command, a
 * subagent or an MCP tool may write anywhere in the workspace), and at each task's start
 * (what changed outside the session, or a background process, since the last one), the
 * session's `WorkspaceCheckpoints` scans the workspace; when it differs from the last
 * checkpoint, its blobs are made durable first and only then is the `workspace_checkpoint`
 * event handed back for the engine to record (traced, not streamed, never in the model's
 * context). A checkpoint that fails (a full disk) is reported once on stderr and skipped:
 * the task goes on, the next boundary tries again.
 */
import { eventMessage, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import type { WorkspaceCheckpoints } from "@penguin/trace";

/** Tools that only read: no checkpoint after them. */
const READ_ONLY_TOOLS = new Set(["read_file", "read_image", "describe_image"]);

export interface CheckpointHook {
  /** The event to record after `call` ended, when the workspace changed. */
  afterToolCall(call: ToolCallPayload): OmniMessage | undefined;
  /** The event to record as a task starts, when the workspace changed since the last checkpoint. */
  atTaskStart(): OmniMessage | undefined;
}

export function checkpointHook(checkpoints: WorkspaceCheckpoints, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): CheckpointHook {
  let warned = false;
  const take = (extra: { tool_call_id?: string; reason?: string }): OmniMessage | undefined => {
    try {
      const taken = checkpoints.take();
      if (taken === undefined) return undefined;
      return eventMessage({ type: "workspace_checkpoint", tree: taken.tree, changed: taken.changed, ...extra });
    } catch (error) {
      if (!warned) warn(`workspace checkpoint skipped (${error instanceof Error ? error.message : String(error)}); the next tool call tries again`);
      warned = true;
      return undefined;
    }
  };
  return {
    afterToolCall: (call) => (READ_ONLY_TOOLS.has(call.name) ? undefined : take({ tool_call_id: call.tool_call_id })),
    atTaskStart: () => take({ reason: "task_start" }),
  };
}
