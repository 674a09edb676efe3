/**
 * ToolRunner: the tool calls of one model response, from approval to output.
 *
 * - Approvals are asked one call at a time, in call order (each call's fiber waits for the
 *   previous call's decision), while the model stream goes on: the stream never waits for a
 *   human.
 * - Approved calls run at once and concurrently, each in its own fiber of the batch's
 *   `FiberSet`; their fragments stream as they come.
 * - Outputs are collected by id and handed back in call order when the batch settles.
 * - After `close` (the run was aborted, or the request failed for good) nothing more is
 *   emitted: the set's fibers are interrupted, which aborts each tool's signal and waits for
 *   the tool to end; pending approvals are abandoned, and the caller fills the gaps with
 *   placeholders.
 *
 * An Effect service (`ToolRunner`, built by `ToolRunnerLive(env)`) over the `Approvals`
 * service. A run's batches share one FiberSet in the run's Scope: each request attempt takes
 * the next batch, and settles or closes it before the attempt ends, so the set is empty
 * between attempts (`next` still closes the previous batch, and closing the run's Scope
 * interrupts whatever runs then). One set per run rather than a Scope and a FiberSet per
 * attempt: their finalizer bookkeeping cost more than a turn's whole approval and tool fibers.
 */
import { Context, Deferred, Effect, Exit, FiberId, FiberSet, Layer, type Scope } from "effect";
import { isEvent, isModel, isPartial, modelMessage, modelMessageSharing, type OmniMessage, type ToolCallOutputPayload, type ToolCallPayload } from "@penguin/omnimessage";
import type { SessionState } from "@penguin/trace";
import type { ApproveFn, EnvironmentInterface } from "../interfaces.js";
import { awaitEdge, isAborted } from "./abort.js";
import { Approvals, type ApprovalsShape, type DecisionReport } from "./approvals.js";
import type { CheckpointHook } from "./checkpoint-hook.js";
import { markToolTurn } from "./turn-timing.js";

/** Deliver a message: traced (when traceable) and, unless `stream` is false, streamed. */
export type Emit = (m: OmniMessage, stream?: boolean) => void;

export interface ToolBatch {
  readonly calls: readonly ToolCallPayload[];
  readonly outputs: ReadonlyMap<string, ToolCallOutputPayload>;
  readonly size: number;
  /** Queue a complete tool call: approval in order, then execution. */
  add(call: ToolCallPayload): Effect.Effect<void>;
  /** Wait until every call has its output; false when the run was aborted first. */
  readonly settle: Effect.Effect<boolean>;
  /** Stop emitting; returns once running executions have observed the abort and ended. */
  readonly close: Effect.Effect<void>;
  /** Outputs in call order; calls without one get `placeholder` (not emitted, not traced). */
  outputsInOrder(placeholder: string): OmniMessage[];
}

/** The tool batches of one run, one per request attempt, in turn. */
export interface ToolBatches {
  /** The batch of the next request attempt (the previous one has settled or closed). */
  readonly next: Effect.Effect<ToolBatch>;
}

export interface ToolRunnerShape {
  /**
   * The batches of one run, their fibers in one FiberSet of the current Scope (the run's).
   * `state` is the session's live state, which the approvals decide on (the engine passes its fold's).
   */
  batches(approve: ApproveFn | undefined, emit: Emit, state?: () => SessionState): Effect.Effect<ToolBatches, never, Scope.Scope>;
}

export class ToolRunner extends Context.Tag("penguin/engine/ToolRunner")<ToolRunner, ToolRunnerShape>() {}

const failedOutput = (call: ToolCallPayload, output: string): ToolCallOutputPayload => ({
  type: "tool_call_output",
  role: "user",
  tool_call_id: call.tool_call_id,
  output,
  stop_reason: "failed",
});

/** `checkpoints`: the workspace checkpoint taken after each call that may change files (checkpoint-hook.ts). */
export function makeToolRunner(env: EnvironmentInterface, approvals: ApprovalsShape, checkpoints?: CheckpointHook): ToolRunnerShape {
  return {
    batches: (approve, emit, state) =>
      Effect.map(FiberSet.make<void>(), (fibers): ToolBatches => {
        let previous: ToolBatch | undefined;
        return {
          // Closing the previous batch is a no-op once it settled; it keeps a forgotten one from emitting into this attempt.
          next: Effect.suspend(() => {
            const closing = previous === undefined ? Effect.void : previous.close;
            const batch = makeBatch(env, approvals, approve, emit, fibers, state, checkpoints);
            previous = batch;
            return Effect.as(closing, batch);
          }),
        };
      }),
  };
}

/** One request attempt's batch over the run's FiberSet. */
function makeBatch(
  env: EnvironmentInterface,
  approvals: ApprovalsShape,
  approve: ApproveFn | undefined,
  emit: Emit,
  fibers: FiberSet.FiberSet<void>,
  state: (() => SessionState) | undefined,
  checkpoints: CheckpointHook | undefined,
): ToolBatch {
  const calls: ToolCallPayload[] = [];
  const outputs = new Map<string, ToolCallOutputPayload>();
  let closed = false;
  let previousDecision: Deferred.Deferred<void> | undefined;

  const report: DecisionReport = {
    emit: (m, stream = true) => {
      if (!closed) emit(m, stream);
    },
    record: (out) => {
      if (closed) return;
      // The recorded payload is the one the next request sends (outputsInOrder shares it): the
      // fold commits that same object, so the wire cache (packages/models) reuses its encoding.
      const message = modelMessage(out);
      outputs.set(out.tool_call_id, message.payload as ToolCallOutputPayload);
      emit(message);
      markToolTurn("output");
    },
    ...(state === undefined ? {} : { state }),
  };

  // The tool's generator is drained to its end even after an abort (it cleans up then):
  // only the wait for its next step is interruptible, inside awaitEdge.
  const execute = (call: ToolCallPayload) =>
    Effect.gen(function* () {
      // Set-up the call needs (a command's shell capture) starts first and runs beside the checkpoint.
      env.prepareTool?.(call);
      if (checkpoints !== undefined) yield* Effect.promise(() => checkpoints.beforeToolCall(call));
      markToolTurn("checkpoint-before");
      const controller = new AbortController();
      const steps = env.executeTool({ toolCall: call, signal: controller.signal, approve });
      for (;;) {
        const step = yield* Effect.either(awaitEdge(steps.next(), controller));
        if (step._tag === "Left") {
          // The Environment must not throw; if it does, the model still gets an output.
          report.record(failedOutput(call, `tool execution failed inside the harness: ${String(step.left)}`));
          break;
        }
        if (step.right.done === true) break;
        const m = step.right.value;
        if (isModel(m, "tool_call_output") && m.origin === undefined) report.record(m.payload);
        else if (isEvent(m, "subagent") && m.origin === undefined) report.emit(m, false);
        else if (isPartial(m) || m.origin !== undefined || m.type === "event_msg") report.emit(m);
      }
      if (!outputs.has(call.tool_call_id) && !closed && !(yield* isAborted)) report.record(failedOutput(call, "tool ended without an output"));
      // After the output, before the batch settles: the next request starts after this fact is recorded.
      if (!closed && checkpoints !== undefined) for (const checkpoint of yield* Effect.promise(() => checkpoints.afterToolCall(call))) report.emit(checkpoint, false);
      markToolTurn("checkpoint-after");
    });

  const task = (call: ToolCallPayload, previous: Deferred.Deferred<void> | undefined, decided: Deferred.Deferred<void>) =>
    Effect.gen(function* () {
      if (previous !== undefined && Exit.isInterrupted(yield* Effect.exit(Effect.interruptible(Deferred.await(previous))))) return;
      const allowed = closed || (yield* isAborted) ? false : yield* approvals.decide(call, approve, report);
      yield* Deferred.succeed(decided, undefined);
      markToolTurn("approved");
      if (allowed && !closed) yield* execute(call);
    }).pipe(Effect.uninterruptible);

  const batch: ToolBatch = {
    calls,
    outputs,
    get size() {
      return calls.length;
    },
    add: (call) =>
      Effect.suspend(() => {
        calls.push(call);
        markToolTurn("call-complete");
        const decided = Deferred.unsafeMake<void>(FiberId.none);
        const previous = previousDecision;
        previousDecision = decided;
        return Effect.asVoid(FiberSet.run(fibers, task(call, previous, decided)));
      }),
    settle: Effect.interruptible(FiberSet.awaitEmpty(fibers)).pipe(Effect.exit, Effect.map(Exit.isSuccess)),
    close: Effect.suspend(() => {
      closed = true;
      return FiberSet.clear(fibers);
    }),
    outputsInOrder: (placeholder) =>
      calls.map((c) =>
        modelMessageSharing(
          outputs.get(c.tool_call_id) ?? { type: "tool_call_output", role: "user", tool_call_id: c.tool_call_id, output: placeholder, stop_reason: "aborted" },
        ),
      ),
  };
  return batch;
}

/** The ToolRunner service over an Environment; needs Approvals. */
export const ToolRunnerLive = (env: EnvironmentInterface, checkpoints?: CheckpointHook): Layer.Layer<ToolRunner, never, Approvals> =>
  Layer.effect(
    ToolRunner,
    Effect.map(Approvals, (approvals) => makeToolRunner(env, approvals, checkpoints)),
  );
