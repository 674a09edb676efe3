/**
 * The promise facade of an Effect program that delivers messages: the program runs as one
 * fiber on the default runtime, its messages reach the host through a Channel, and the host
 * reads them as an AsyncGenerator (what `session.run` returns). A task and a goal are both
 * run this way, so the rules live here once:
 * - the fiber yields once before the program starts, so an abort signalled already (or while
 *   the host wires its signal) is seen by the program's first check, like any other abort;
 * - the program runs uninterruptibly; `signal` and a host that stops reading interrupt the
 *   fiber, which cuts in only at the program's own interruptible waits;
 * - the generator ends only once the fiber has ended, so a task's last record is written
 *   before the host's loop goes on;
 * - a failure (a defect, or an error the program did not handle) ends the host's loop with it.
 */
import { Cause, Effect, Exit, FiberId, type Clock, type Fiber } from "effect";
import type { OmniMessage } from "@penguin/omnimessage";
import { Channel } from "./channel.js";

export interface FiberMessagesOptions<E> {
  signal?: AbortSignal | undefined;
  /** Replaces the default Clock (a host's injected sleep). */
  clock?: Clock.Clock | undefined;
  /** Told the fiber once it runs (the engine keeps it, to abort the task on dispose). */
  onFiber?: (fiber: Fiber.RuntimeFiber<unknown, E>) => void;
  /** The error the host gets for a failure; default: the cause squashed. */
  failure?: (cause: Cause.Cause<E>) => unknown;
}

export async function* fiberMessages<E>(
  program: (push: (m: OmniMessage) => void) => Effect.Effect<unknown, E>,
  options: FiberMessagesOptions<E> = {},
): AsyncGenerator<OmniMessage, void> {
  const out = new Channel<OmniMessage>();
  let effect = Effect.uninterruptible(Effect.zipRight(Effect.yieldNow(), program((m) => out.push(m))));
  if (options.clock !== undefined) effect = Effect.withClock(effect, options.clock);
  const fiber = Effect.runFork(effect);
  options.onFiber?.(fiber);
  const ended = new Promise<void>((resolve) => {
    fiber.addObserver((exit) => {
      if (Exit.isFailure(exit) && !Exit.isInterrupted(exit)) out.fail((options.failure ?? Cause.squash)(exit.cause));
      else out.close();
      resolve();
    });
  });
  const abort = () => fiber.unsafeInterruptAsFork(FiberId.none);
  if (options.signal?.aborted === true) abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  let finished = false;
  try {
    for await (const m of out) yield m;
    finished = true;
  } finally {
    if (!finished) abort();
    await ended;
    options.signal?.removeEventListener("abort", abort);
  }
}
