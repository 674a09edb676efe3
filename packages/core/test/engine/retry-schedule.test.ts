// The reconnect policy as an Effect Schedule, on TestClock (nothing sleeps for real):
// given failed outcomes, when the schedule decides, then the delays are 2, 4, 8, 16 s and the
// 30 s cap, there are 5 retries, auth and permanent failures stop at once; and the wait the
// engine uses ends exactly when the TestClock reaches the delay, at "Retry now", or at abort
// (the fiber's interruption).
import { describe, expect, it } from "@effect/vitest";
import { Chunk, Clock, Deferred, Duration, Effect, Exit, Fiber, Option, TestClock } from "effect";
import { reconnectSchedule, reconnectWait, retryDecision, retryWaitMs } from "../../src/engine/reconnect.js";
import type { LLMOutcome } from "../../src/interfaces.js";

const failed: LLMOutcome = { status: "failed", errorMessage: "HTTP 503" };
const millisOf = (d: Option.Option<Duration.Duration>) => Option.map(d, Duration.toMillis);

/** Runs `reconnectWait` in a fiber; `done()` tells whether it has ended. */
function startWait(ms: number) {
  return Effect.gen(function* () {
    const skip = yield* Deferred.make<void>();
    const fiber = yield* Effect.fork(reconnectWait(Duration.millis(ms), skip));
    // Let the fiber reach its sleep before the clock moves.
    while (Chunk.isEmpty(yield* TestClock.sleeps())) yield* Effect.yieldNow();
    const done = Effect.map(fiber.poll, Option.isSome);
    return { fiber, skip, done };
  });
}

describe("reconnect schedule", () => {
  it.effect("given five failed attempts, when the schedule decides, then it waits 2, 4, 8, 16 and 30 s, and stops after the sixth", () =>
    Effect.gen(function* () {
      const delays: Option.Option<number>[] = [];
      for (let attempt = 1; attempt <= 6; attempt++) delays.push(millisOf(yield* retryDecision(attempt, failed)));
      expect(delays).toEqual([Option.some(2000), Option.some(4000), Option.some(8000), Option.some(16000), Option.some(30000), Option.none()]);
    }));

  it.effect("given a long run of failures and no retry limit, when the delays grow, then they stay capped at 30 s", () =>
    Effect.gen(function* () {
      const unlimited = reconnectSchedule(100);
      const delays: Option.Option<number>[] = [];
      for (let attempt = 5; attempt <= 9; attempt++) delays.push(millisOf(yield* retryDecision(attempt, failed, unlimited)));
      expect(delays).toEqual([30000, 30000, 30000, 30000, 30000].map(Option.some));
    }));

  it.effect("given an auth, permanent or configuration failure, when the schedule decides, then there is no retry", () =>
    Effect.gen(function* () {
      const terminal: LLMOutcome[] = [
        { status: "auth", errorMessage: "HTTP 401" },
        { status: "failed", permanent: true, errorMessage: "HTTP 400" },
        { status: "failed", configuration: true, errorMessage: "unknown host" },
        { status: "aborted" },
      ];
      for (const outcome of terminal) expect(yield* retryDecision(1, outcome)).toEqual(Option.none());
      for (const status of ["timeout", "malformed", "failed"] as const) expect(millisOf(yield* retryDecision(1, { status }))).toEqual(Option.some(2000));
    }));

  it.effect("given a Retry-After, when the schedule decides, then it waits at least that long, at most 2 minutes", () =>
    Effect.gen(function* () {
      expect(millisOf(yield* retryDecision(1, { ...failed, retryAfterMs: 9000 }))).toEqual(Option.some(9000));
      expect(millisOf(yield* retryDecision(4, { ...failed, retryAfterMs: 9000 }))).toEqual(Option.some(16000));
      expect(millisOf(yield* retryDecision(1, { ...failed, retryAfterMs: 10 * 60_000 }))).toEqual(Option.some(120000));
      expect(retryWaitMs(1, { ...failed, retryAfterMs: 9000 })).toBe(9000);
    }));

  it.effect("given a 2 s wait, when the TestClock moves, then it ends at 2000 ms and not a millisecond before", () =>
    Effect.gen(function* () {
      const wait = yield* startWait(2000);
      expect(Chunk.toReadonlyArray(yield* TestClock.sleeps())).toEqual([2000]);
      yield* TestClock.adjust(Duration.millis(1999));
      expect(yield* wait.done).toBe(false);
      yield* TestClock.adjust(Duration.millis(1));
      yield* Fiber.join(wait.fiber);
      expect(yield* wait.done).toBe(true);
    }));

  it.effect("given a 30 s wait, when Retry now is pressed, then it ends at once without the clock moving", () =>
    Effect.gen(function* () {
      const wait = yield* startWait(30000);
      yield* Deferred.succeed(wait.skip, undefined);
      yield* Fiber.join(wait.fiber);
      expect(yield* wait.done).toBe(true);
    }));

  it.effect("given a wait, when the run is aborted (its fiber interrupted), then the wait ends at once, the clock never having moved", () =>
    Effect.gen(function* () {
      const wait = yield* startWait(16000);
      const exit = yield* Fiber.interrupt(wait.fiber);
      expect(Exit.isInterrupted(exit)).toBe(true);
      expect(yield* wait.done).toBe(true);
      expect(yield* Clock.currentTimeMillis).toBe(0);
    }));
});
