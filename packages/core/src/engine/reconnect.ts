/**
 * Reconnect policy: which model outcomes are retried inside a run, and how long to wait.
 *
 * `timeout`, `malformed` and `failed` are retried up to 5 times, waiting
 * min(2000·2^(n−1), 30000) ms before retry n (2, 4, 8, 16, 30 s), or longer when the
 * provider asked for it (429 Retry-After, capped at 2 minutes). `auth` and anything marked
 * `permanent` (including `configuration` errors: a bad base URL, an unknown host, a 404) are
 * never retried: the same request cannot start working.
 *
 * The policy is one Effect `Schedule` (`reconnectSchedule`), fed the failed outcomes: it
 * decides both whether there is a retry and its delay. The engine asks it for the decision
 * (`retryDecision`), announces the wait (`retry_in_ms`) and then sleeps that same Duration
 * through the `Clock` (`reconnectWait`), so the announced and the real wait cannot drift and
 * a `TestClock` drives every wait in tests. A host that injected a `SleepFn` (the SDK's
 * `sleep` option) gets a Clock whose sleep is that function (`clockFromSleep`).
 */
import { Clock, Deferred, Duration, Effect, Option, Schedule, ScheduleDecision, ScheduleIntervals } from "effect";
import type { StopReason } from "@penguin/omnimessage";
import type { LLMOutcome } from "../interfaces.js";

export const MAX_RETRIES = 5;
const BASE_DELAY = Duration.millis(2000);
const MAX_DELAY = Duration.millis(30000);
const MAX_RETRY_AFTER = Duration.millis(120000);

/** True for outcomes the engine retries. Exhaustive on purpose: a new status must be classified. */
export function isRetryable(outcome: LLMOutcome): boolean {
  if (outcome.permanent || outcome.configuration === true) return false;
  const status: StopReason = outcome.status;
  switch (status) {
    case "timeout":
    case "malformed":
    case "failed":
      return true;
    case "completed":
    case "aborted":
    case "auth":
      return false;
  }
}

/**
 * The reconnect policy as a Schedule over failed outcomes: exponential from 2 s, capped at
 * 30 s, at most `maxRetries` recurrences, only while the outcome is retryable, and never
 * shorter than the provider's Retry-After (capped). Its output is the delay.
 */
export function reconnectSchedule(maxRetries: number = MAX_RETRIES): Schedule.Schedule<Duration.Duration, LLMOutcome> {
  const backoff = Schedule.exponential(BASE_DELAY, 2).pipe(Schedule.modifyDelay((_, delay) => Duration.min(delay, MAX_DELAY)));
  return Schedule.identity<LLMOutcome>().pipe(
    Schedule.intersect(backoff),
    Schedule.intersect(Schedule.recurs(maxRetries)),
    Schedule.whileInput(isRetryable),
    Schedule.modifyDelay(([[outcome]], delay) => {
      const asked = Duration.min(Duration.millis(outcome.retryAfterMs ?? 0), MAX_RETRY_AFTER);
      return Duration.max(delay, asked);
    }),
    Schedule.delays,
  );
}

const DEFAULT_SCHEDULE = reconnectSchedule();

/**
 * The Schedule's decision after failed attempt number `attempt` (1-based): the wait before the
 * next attempt, or none when the run must stop. The delay of recurrence n depends only on n
 * and the outcome, so the schedule is stepped `attempt` times with this outcome; nothing sleeps.
 */
export function retryDecision(
  attempt: number,
  outcome: LLMOutcome,
  schedule: Schedule.Schedule<Duration.Duration, LLMOutcome> = DEFAULT_SCHEDULE,
): Effect.Effect<Option.Option<Duration.Duration>> {
  return Effect.gen(function* () {
    let state: unknown = schedule.initial;
    let now = 0;
    let delay: Duration.Duration = Duration.zero;
    for (let n = 1; n <= attempt; n++) {
      const [next, out, decision] = yield* schedule.step(now, outcome, state);
      if (ScheduleDecision.isDone(decision)) return Option.none();
      state = next;
      now = ScheduleIntervals.start(decision.intervals);
      delay = out;
    }
    return Option.some(delay);
  });
}

/** The documented back-off alone: the delay before retry `retry` (1-based), in ms. */
export function reconnectDelayMs(retry: number): number {
  return retryWaitMs(retry, { status: "failed" });
}

/** The wait before retry number `retry` (1-based) after this outcome, in ms (it must be retryable). */
export function retryWaitMs(retry: number, outcome: LLMOutcome): number {
  const decided = Effect.runSync(retryDecision(retry, { ...outcome, status: "failed", permanent: false, configuration: false }, reconnectSchedule(Number.MAX_SAFE_INTEGER)));
  return Duration.toMillis(Option.getOrElse(decided, () => Duration.zero));
}

/**
 * The reconnect wait: `delay` on the Clock, ended early by `skip` ("Retry now"). Abort is the
 * fiber's interruption, which ends the sleep at once.
 */
export function reconnectWait(delay: Duration.Duration, skip: Deferred.Deferred<void>): Effect.Effect<void> {
  return Effect.raceFirst(Effect.sleep(delay), Deferred.await(skip));
}

/**
 * A host's own wait (the SDK's `sleep` option): resolves after `ms`, or early when `signal`
 * aborts. Tests inject one that records the wait and returns at once.
 */
export type SleepFn = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * A Clock whose sleeps are the host's SleepFn (time still reads the real clock). Interrupting
 * the sleeping fiber aborts the signal handed to the SleepFn.
 */
export function clockFromSleep(sleep: SleepFn): Clock.Clock {
  const real = Clock.make();
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => real.unsafeCurrentTimeMillis(),
    currentTimeMillis: real.currentTimeMillis,
    unsafeCurrentTimeNanos: () => real.unsafeCurrentTimeNanos(),
    currentTimeNanos: real.currentTimeNanos,
    sleep: (duration) => Effect.promise((signal) => sleep(Duration.toMillis(duration), signal)),
  };
}
