/**
 * input_subagent (rw): give a subagent a follow-up task, or wait on the one it is running.
 *
 * - A prompt to an idle subagent starts a new task in the same child session (it keeps its
 *   context); the call waits up to `yield_time_ms` (default 300000) for the answer.
 * - A prompt to a running subagent is steering for its current task (delivered at its next
 *   turn boundary); then the call waits as above.
 * - An empty prompt only waits (default 10000 ms) for the running task to end; on an idle
 *   subagent it returns the last task's answer at once.
 * The window is clamped to [250, timeout − 1000]. The output is the same as run_subagent's:
 * the header and final answer, or "still running". Messages the child produced while nobody
 * waited on it are forwarded (with `origin`) first. If the call is interrupted, the child's
 * task is stopped; the child stays for follow-ups.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, optional, required, wholeNumberFrom, withDefault } from "../tool-params.js";
import { failed } from "../tool.js";
import { clampYield } from "../limits.js";
import type { CallScopes } from "../../subagents/call-scope.js";
import { INPUT_SUBAGENT_POLL_YIELD_MS, INPUT_SUBAGENT_PROMPT_YIELD_MS } from "../../subagents/limits.js";
import { outcomeResult, type SubagentToolDetails } from "../../subagents/outcome.js";
import { runAtToolEdge, waitAtToolEdge, type SubagentsShape } from "../../subagents/subagents.js";

export const inputSubagentParams = Schema.Struct({
  subagent_id: required(NonEmptyString, "The subagent_id run_subagent gave."),
  prompt: withDefault(
    Schema.String,
    "",
    "A follow-up task (or, while it runs, steering for its current task). Empty: only wait for the running task.",
  ),
  yield_time_ms: optional(
    wholeNumberFrom(0),
    "How long to wait for the answer (ms): default 300000 after a prompt, 10000 when only waiting.",
  ),
});

export type InputSubagentParams = Schema.Schema.Type<typeof inputSubagentParams>;

export type InputSubagentDetails = SubagentToolDetails;

export interface InputSubagentToolOptions {
  subagents: SubagentsShape;
  scopes: CallScopes;
  timeoutMs: number;
}

export function createInputSubagentTool(options: InputSubagentToolOptions): BuiltinTool<InputSubagentParams, InputSubagentDetails> {
  return {
    name: "input_subagent",
    description:
      "Send a follow-up task to a subagent started by run_subagent (it keeps its context), steer the task it is running, or, with an empty prompt, wait for its running task to finish. Returns its answer, or that it is still running.",
    permission: "rw",
    params: inputSubagentParams,
    takesDescription: true,
    async *execute(params, ctx) {
      const { subagents } = options;
      const found = await runAtToolEdge(subagents.find(params.subagent_id));
      if (!found.ok) return failed(found.error);
      const child = found.value;
      const scope = options.scopes.get(ctx.toolCallId);
      const detach = scope === undefined ? () => undefined : child.attach(scope.emit);
      try {
        const sending = params.prompt !== "";
        if (sending) {
          const given = await runAtToolEdge(subagents.input(child, params.prompt, scope?.approve, ctx.description ?? params.prompt));
          if (!given.ok) return failed(given.error);
        }
        const requested = params.yield_time_ms ?? (sending ? INPUT_SUBAGENT_PROMPT_YIELD_MS : INPUT_SUBAGENT_POLL_YIELD_MS);
        const windowMs = clampYield(requested, options.timeoutMs);
        const outcome = await waitAtToolEdge(subagents, child, windowMs, ctx.signal);
        return yield* outcomeResult(child, outcome, { subagents, windowMs, onAbort: "abort-task" });
      } finally {
        detach();
      }
    },
  };
}
