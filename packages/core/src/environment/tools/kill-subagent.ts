/**
 * kill_subagent (rw): stop a subagent for good.
 *
 * Its running task is aborted (its own tool calls are interrupted and its commands' process
 * groups reaped), then the child session is disposed, which stops its background commands
 * too. The call returns once all of that is done. Its trace stays on disk; the id can no
 * longer be used, and no `[background_task_done]` notice is sent for it. Messages the child
 * produced while nobody waited on it are forwarded (with `origin`) first.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, required } from "../tool-params.js";
import { failed } from "../tool.js";
import type { CallScopes } from "../../subagents/call-scope.js";
import type { SubagentToolDetails } from "../../subagents/outcome.js";
import { headerLine } from "../../subagents/result-text.js";
import { runAtToolEdge, type SubagentsShape } from "../../subagents/subagents.js";

export const killSubagentParams = Schema.Struct({
  subagent_id: required(NonEmptyString, "The subagent_id run_subagent gave."),
});

export type KillSubagentParams = Schema.Schema.Type<typeof killSubagentParams>;

export interface KillSubagentDetails extends SubagentToolDetails {
  /** It was running a task when killed. */
  wasRunning: boolean;
}

export interface KillSubagentToolOptions {
  subagents: SubagentsShape;
  scopes: CallScopes;
}

export function createKillSubagentTool(options: KillSubagentToolOptions): BuiltinTool<KillSubagentParams, KillSubagentDetails> {
  return {
    name: "kill_subagent",
    description: "Stop a subagent started by run_subagent: abort its running task and close it. Its id can no longer be used.",
    permission: "rw",
    params: killSubagentParams,
    takesDescription: true,
    async *execute(params, ctx) {
      const { subagents } = options;
      const found = await runAtToolEdge(subagents.find(params.subagent_id));
      if (!found.ok) return failed(found.error);
      const child = found.value;
      const wasRunning = child.running;
      const scope = options.scopes.get(ctx.toolCallId);
      const detach = scope === undefined ? () => undefined : child.attach(scope.emit);
      try {
        await runAtToolEdge(subagents.stop(child));
      } finally {
        detach();
      }
      yield headerLine(child.id, "killed", child.totals());
      return {
        note: `[subagent ${child.id} killed${wasRunning ? " while running a task" : ""}]`,
        details: { subagentId: child.id, status: "killed", wasRunning },
      };
    },
  };
}
