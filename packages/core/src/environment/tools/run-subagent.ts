/**
 * run_subagent (rw): hand a task to a child agent session and get its final answer.
 *
 * The child is a new session in the same workspace with its own trace (`source:
 * "subagent"`), spawned through the Environment's SubagentRunner: this agent or `agent_id`,
 * this session's model or the explicit `(provider, model_id)` pair (both or neither), this
 * session's thinking level or `thinking_level`. At the spawn the parent's trace gets a
 * `subagent` pointer; while the call waits, the child's messages stream to the parent's host
 * with `origin` set (never into the parent's trace). The child asks the parent's approval
 * function for each of its tool calls.
 *
 * The call waits `yield_time_ms` (default 300000, clamped to [250, timeout − 1000]):
 *   - the task ends: a header (subagent id, status, turns, tokens) and the child's answer;
 *   - it is still running: the `subagent_id` and a note; it keeps running in the background
 *     for input_subagent / kill_subagent;
 *   - the call is interrupted: the child is killed before the call returns.
 * With `run_in_background` the call returns at once; when the task ends a
 * `[background_task_done]` notice reaches the parent at its next turn boundary (not when the
 * child is killed). At most 8 children live per session (subagents/limits.ts).
 */
import { subagentEvent } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import { Effect, Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, optional, required, wholeNumberFrom, withDefault } from "../tool-params.js";
import { failed } from "../tool.js";
import { clampYield } from "../limits.js";
import type { CallScopes } from "../../subagents/call-scope.js";
import { RUN_SUBAGENT_YIELD_MS } from "../../subagents/limits.js";
import { outcomeResult, type SubagentToolDetails } from "../../subagents/outcome.js";
import { headerLine, startedInBackgroundNote } from "../../subagents/result-text.js";
import { runAtToolEdge, waitAtToolEdge, type SubagentsShape } from "../../subagents/subagents.js";

const LEVELS = ["none", "low", "medium", "high", "xhigh", "max"] as const satisfies readonly ThinkingLevel[];
/** Fails to compile when @penguin/models gains a thinking level this list lacks. */
const everyLevelListed: [Exclude<ThinkingLevel, (typeof LEVELS)[number]>] extends [never] ? true : never = true;
void everyLevelListed;

export const runSubagentParams = Schema.Struct({
  prompt: required(NonEmptyString, "The task. The subagent sees nothing of this conversation: say everything it needs."),
  agent_id: optional(NonEmptyString, "Run the task as this agent of the project (default: this agent)."),
  model_id: optional(NonEmptyString, "The subagent's model id, given together with `provider` (default: this session's model)."),
  provider: optional(NonEmptyString, "The provider of `model_id`; give both or neither."),
  thinking_level: optional(Schema.Literal(...LEVELS), "The subagent's thinking level (default: this session's)."),
  yield_time_ms: withDefault(
    wholeNumberFrom(0),
    RUN_SUBAGENT_YIELD_MS,
    "How long to wait for the answer before the subagent moves to the background (ms).",
  ),
  run_in_background: withDefault(Schema.Boolean, false, "Start it in the background and return at once; you are notified when it finishes."),
});

export type RunSubagentParams = Schema.Schema.Type<typeof runSubagentParams>;

export type RunSubagentDetails = SubagentToolDetails;

export interface RunSubagentToolOptions {
  subagents: SubagentsShape;
  scopes: CallScopes;
  /** The tool's effective timeout: the yield window stays 1 s below it. */
  timeoutMs: number;
}

export function createRunSubagentTool(options: RunSubagentToolOptions): BuiltinTool<RunSubagentParams, RunSubagentDetails> {
  return {
    name: "run_subagent",
    description:
      "Delegate a task to a subagent: a fresh agent session in the same workspace that works on it with its own tools and context, then answers. Returns its final answer with its subagent_id. If it is still running after `yield_time_ms` it moves to the background: wait for it or send a follow-up with input_subagent, stop it with kill_subagent. Set `run_in_background` to start it and go on at once; you are notified when it finishes.",
    permission: "rw",
    params: runSubagentParams,
    takesDescription: true,
    async *execute(params, ctx) {
      if ((params.model_id === undefined) !== (params.provider === undefined)) {
        return failed("`model_id` and `provider` go together: give both to pick the subagent's model, or neither to use this session's.");
      }
      const { subagents } = options;
      const spawned = await runAtToolEdge(subagents.start({
        ...(params.agent_id === undefined ? {} : { agentId: params.agent_id }),
        ...(params.provider === undefined ? {} : { provider: params.provider }),
        ...(params.model_id === undefined ? {} : { modelId: params.model_id }),
        ...(params.thinking_level === undefined ? {} : { thinkingLevel: params.thinking_level }),
      }));
      if (!spawned.ok) return failed(spawned.error);
      const child = spawned.value;
      const scope = options.scopes.get(ctx.toolCallId);
      scope?.emit(subagentEvent(child.id));
      const label = ctx.description ?? params.prompt;
      Effect.runSync(subagents.label(child, label));
      child.notify = params.run_in_background;
      const detach = scope === undefined ? () => undefined : child.attach(scope.emit);
      try {
        const started = child.start(params.prompt, scope?.approve, label);
        if (!started.ok) return failed(started.error);
        if (params.run_in_background) {
          await started.started;
          yield headerLine(child.id, "running");
          return { note: startedInBackgroundNote(child.id), details: { subagentId: child.id, status: "running", background: true } };
        }
        const windowMs = clampYield(params.yield_time_ms, options.timeoutMs);
        const outcome = await waitAtToolEdge(subagents, child, windowMs, ctx.signal);
        return yield* outcomeResult(child, outcome, { subagents, windowMs, onAbort: "kill" });
      } finally {
        detach();
      }
    },
  };
}
