// The engine's reconnect waits on the TestClock, through the real engine against the testkit:
// given a model that fails, when the task runs as an Effect Stream (`session.runStream`, in the
// test's context), then the next request goes out exactly when the TestClock reaches the
// announced delay (2000 ms, then 4000 ms), never a millisecond before; auth failures never
// wait; and interrupting the task during a wait (abort) ends it at once with the abort
// recorded and the input carried over. Nothing sleeps for real: the test moves the clock and
// waits for what it can observe (the pending sleeps, the requests the testkit received).
import { afterEach, describe, expect, it } from "@effect/vitest";
import { Chunk, Duration, Effect, Fiber, Stream, TestClock } from "effect";
import type { OmniMessage } from "@penguin/omnimessage";
import { allow, startHarness, traceOf, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** Let real I/O (the testkit's HTTP) progress: one turn of the event loop, not a timed wait. */
const ioTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)));

/** Wait (in event-loop turns) until `check` holds. */
const until = (check: Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    while (!(yield* check)) yield* ioTurn;
  });

const pendingSleeps = Effect.map(TestClock.sleeps(), Chunk.toReadonlyArray);

const retryNotices = (ms: OmniMessage[]) =>
  ms.flatMap((m) => (m.type === "event_msg" && m.payload.type === "request_end" && m.payload.retry_in_ms !== undefined ? [m.payload.retry_in_ms] : []));

describe("reconnect waits on the Clock", () => {
  it.effect("given two 503s, when the clock reaches 2000 ms and then 4000 ms more, then each retry goes out exactly then", () =>
    Effect.gen(function* () {
      const harness = yield* Effect.promise(() =>
        startHarness({ script: [{ fault: { kind: "http", status: 503 } }, { fault: { kind: "http", status: 503 } }, { text: "recovered" }] }),
      );
      h = harness;
      const session = yield* Effect.promise(() => harness.agent.createSession({ workspaceDir: harness.workspace }));
      const seen: OmniMessage[] = [];
      const task = yield* Effect.fork(Stream.runForEach(session.runStream("hello", { approve: allow }), (m) => Effect.sync(() => seen.push(m))));

      yield* until(Effect.map(pendingSleeps, (s) => s.length > 0));
      // The notice is a request_end, a commit point: the host gets it once its sync is done.
      yield* until(Effect.sync(() => retryNotices(seen).length > 0));
      expect(yield* pendingSleeps).toEqual([2000]);
      expect(retryNotices(seen)).toEqual([2000]);
      yield* TestClock.adjust(Duration.millis(1999));
      expect(yield* pendingSleeps).toEqual([2000]);
      expect(harness.kit.requests).toHaveLength(1);

      yield* TestClock.adjust(Duration.millis(1));
      yield* until(Effect.map(pendingSleeps, (s) => s.includes(6000)));
      yield* until(Effect.sync(() => retryNotices(seen).length > 1));
      expect(harness.kit.requests).toHaveLength(2);
      expect(retryNotices(seen)).toEqual([2000, 4000]);
      yield* TestClock.adjust(Duration.millis(3999));
      expect(harness.kit.requests).toHaveLength(2);

      yield* TestClock.adjust(Duration.millis(1));
      yield* Fiber.join(task);
      expect(harness.kit.requests).toHaveLength(3);
      expect(harness.sleeps).toEqual([]);
      const last = seen.at(-1);
      expect(last?.type === "event_msg" && last.payload.type).toBe("token_usage");
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a 401, when the task runs, then it stops without any wait", () =>
    Effect.gen(function* () {
      const harness = yield* Effect.promise(() => startHarness({ script: [{ fault: { kind: "http", status: 401, body: "bad key" } }] }));
      h = harness;
      const session = yield* Effect.promise(() => harness.agent.createSession({ workspaceDir: harness.workspace }));
      const seen = Chunk.toReadonlyArray(yield* Stream.runCollect(session.runStream("hello", { approve: allow })));
      expect(yield* pendingSleeps).toEqual([]);
      expect(harness.kit.requests).toHaveLength(1);
      expect(seen.at(-1)?.payload).toMatchObject({ type: "abort", reason: expect.stringMatching(/^auth/) });
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a retry wait, when the task is interrupted (aborted) during it, then the run ends at once with the abort recorded", () =>
    Effect.gen(function* () {
      const harness = yield* Effect.promise(() => startHarness({ script: [{ fault: { kind: "http", status: 503 } }, { text: "never sent" }] }));
      h = harness;
      const session = yield* Effect.promise(() => harness.agent.createSession({ workspaceDir: harness.workspace }));
      const task = yield* Effect.fork(Stream.runDrain(session.runStream("hello", { approve: allow })));
      yield* until(Effect.map(pendingSleeps, (s) => s.length > 0));

      yield* Fiber.interrupt(task);
      expect(session.running).toBe(false);
      expect(harness.kit.requests).toHaveLength(1);
      const trace = traceOf(session.tracePath);
      expect(trace.at(-1)?.payload).toEqual({ type: "abort", reason: "aborted by user" });
      expect(session.carryOver().map((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text)).toEqual(["hello"]);
      yield* Effect.promise(() => session.dispose());
    }));
});
