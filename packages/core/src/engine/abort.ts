/**
 * Abort as fiber interruption, bridged to the AbortSignal of the promise edges.
 *
 * A run's program executes uninterruptibly, so an abort (the run fiber's interruption) never
 * cuts a recording in half; the places where an abort may cut in are explicit interruptible
 * regions: awaiting the model stream, a tool, the Human's approval, a reconnect wait. Once the
 * fiber is interrupted every later interruptible region ends at once, so the program runs
 * straight to its abort bookkeeping (`request_end aborted`, carry-over, the `abort` event).
 *
 * `awaitEdge` is how an edge (gateway fetch, tool I/O) is awaited: on interruption it aborts
 * the edge's own AbortController and still awaits the edge, which reports how it ended (an
 * `aborted` outcome, the partial output). `abandonEdge` is for edges that need not be heard
 * out (the Human's approval prompt): the signal aborts and the promise is dropped.
 */
import { Effect, Exit } from "effect";

/** True once the current fiber was interrupted (the run was aborted). */
export const isAborted: Effect.Effect<boolean> = Effect.interruptible(Effect.void).pipe(Effect.exit, Effect.map(Exit.isInterrupted));

/**
 * An edge's promise as an Effect that resumes once the promise settles. `Effect.async` with a
 * one-argument register, not `Effect.tryPromise`: the promise already exists (nothing can throw
 * while starting it) and the edge has its own AbortController, so no second one is made; this
 * runs once per model stream event and per tool output step, the engine's hottest wait.
 */
function settlement<A>(promise: PromiseLike<A>): Effect.Effect<A, unknown> {
  return Effect.async<A, unknown>((resume) => {
    promise.then(
      (value) => resume(Effect.succeed(value)),
      (error: unknown) => resume(Effect.fail(error)),
    );
  });
}

/** Await `promise` (started with `controller`'s signal); an abort aborts the signal and waits for the edge to end. */
export function awaitEdge<A>(promise: PromiseLike<A>, controller: AbortController): Effect.Effect<A, unknown> {
  const settle = settlement(promise);
  return Effect.interruptible(settle).pipe(
    Effect.exit,
    Effect.flatMap((exit) => {
      if (!Exit.isInterrupted(exit)) return exit;
      controller.abort();
      return settle;
    }),
  );
}

/** Await an edge that is dropped on abort: its signal aborts and the run does not wait for it. */
export function abandonEdge<A>(start: (signal: AbortSignal) => PromiseLike<A>): Effect.Effect<A, unknown> {
  return Effect.interruptible(Effect.tryPromise({ try: (signal) => start(signal), catch: (error) => error }));
}
