/**
 * Goals: goal mode as an Effect service of one session.
 *
 * - `Goals` (Context.Tag) offers `run` (the goal program, its messages handed to a callback,
 *   its outcome as the result) and `stream` (the same as a Stream in the caller's context:
 *   its Clock drives the rounds' reconnect waits; closing the stream early aborts the goal).
 * - `GoalsLive(session)` builds it over a `GoalSession` (goal-loop.ts): the session's rounds,
 *   its trace and its usage. `engineGoalSession` is the GoalSession of a ContextEngine and
 *   its trace, as the SDK's Session builds it.
 * - `goalRequest` turns the Human's input and a budget into a GoalRequest, with the error a
 *   host shows for a bad budget.
 *
 * A round over the engine is its task as a Stream (`engine.stream`). Aborting a round must
 * still hand the host the task's `abort`, so the round is not cut by interrupting its
 * consumer (that would drop what the task records while it stops); the engine's running task
 * is interrupted instead (`abortRunning`) and the consumer reads on until the task has ended.
 * A round that had not started its task when the abort came starts none; one that started
 * just after is stopped at its first message.
 */
import { userText, type GoalOutcome, type OmniMessage, type TokenCounts } from "@penguin/omnimessage";
import { Cause, Context, Effect, Exit, Fiber, Layer, Stream } from "effect";
import type { ContextEngine } from "../engine/context-engine.js";
import type { TraceSink } from "../engine/trace-sink.js";
import { parseBudget } from "./budget.js";
import { goalProgram, type Deliver, type GoalFileError, type GoalRequest, type GoalSession, type RoundOptions } from "./goal-loop.js";

export interface GoalsShape {
  /** Run a goal to its end; every message goes to `deliver` as it comes. Interruption aborts it. */
  run(request: GoalRequest, deliver: Deliver): Effect.Effect<GoalOutcome, GoalFileError>;
  /** The goal's messages as a Stream; ending it early aborts the goal (its end is still recorded). */
  stream(request: GoalRequest): Stream.Stream<OmniMessage, GoalFileError>;
}

export class Goals extends Context.Tag("penguin/goal/Goals")<Goals, GoalsShape>() {}

export function makeGoals(session: GoalSession): GoalsShape {
  const run = (request: GoalRequest, deliver: Deliver) => goalProgram(request, session, deliver);
  return {
    run,
    stream: (request) =>
      Stream.asyncScoped<OmniMessage, GoalFileError>(
        (emit) =>
          Effect.forkScoped(
            run(request, (m) => void emit.single(m)).pipe(
              Effect.exit,
              Effect.flatMap((exit) => Effect.promise(() => (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause) ? emit.end() : emit.halt(exit.cause)))),
            ),
          ),
        "unbounded",
      ),
  };
}

/** The Goals service of one session. */
export const GoalsLive = (session: GoalSession): Layer.Layer<Goals> => Layer.succeed(Goals, makeGoals(session));

/** What a goal round needs of the engine: its task as a Stream, and a way to abort it. */
export type RoundEngine = Pick<ContextEngine, "stream" | "abortRunning">;

/** One round over an engine: see the file comment. */
export function engineRound(engine: RoundEngine): GoalSession["round"] {
  return (input, options: RoundOptions, deliver) =>
    Effect.gen(function* () {
      let aborting = false;
      const task = Stream.suspend(() => (aborting ? Stream.empty : engine.stream(input, options)));
      // A daemon, not a child: a child would be interrupted with the round, and it must read on
      // after an abort. Every path below waits for it to end.
      const reader = yield* Effect.forkDaemon(
        Stream.runForEach(task, (m) =>
          Effect.suspend(() => {
            deliver(m);
            return aborting ? engine.abortRunning : Effect.void;
          }),
        ),
      );
      yield* Fiber.join(reader).pipe(
        Effect.onInterrupt(() =>
          Effect.suspend(() => {
            aborting = true;
            return Effect.zipRight(engine.abortRunning, Fiber.await(reader));
          }),
        ),
      );
    });
}

/** The GoalSession of an engine: its rounds, its trace, its usage as the trace records it, its fold (`trace` must be the one it follows). */
export function engineGoalSession(parts: {
  scratchpadDir: string;
  engine: RoundEngine & Pick<ContextEngine, "fold">;
  trace: Pick<TraceSink, "append">;
  usage: () => TokenCounts;
}): GoalSession {
  return {
    scratchpadDir: parts.scratchpadDir,
    round: engineRound(parts.engine),
    record: (m) => Effect.sync(() => parts.trace.append(m)),
    usage: Effect.sync(parts.usage),
    state: Effect.sync(() => parts.engine.fold.state),
  };
}

/** A GoalRequest from the Human's input (its texts are the objective) and a budget (`500k`, `2m`, 12000, -1; absent: none). */
export function goalRequest(messages: OmniMessage[] | string, budget: number | string | undefined, round?: RoundOptions): GoalRequest {
  const input = typeof messages === "string" ? [userText(messages)] : messages;
  const tokens = parseBudget(budget);
  if (tokens === undefined) throw new Error(`invalid goal budget "${String(budget)}": use a token count such as 500k, 2m or 120000, or -1 for no limit`);
  const objective = input.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" ? [m.payload.text] : [])).join("\n\n");
  return round === undefined ? { input, objective, budget: tokens } : { input, objective, budget: tokens, round };
}
