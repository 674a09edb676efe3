// The Goals service (goal/goals.ts) through a real session against the testkit model, as an
// Effect host uses it (`session.goalsLayer`): given a session, when a goal runs as a Stream in
// the test's context, then the trace holds `goal_started` before the first round's request and
// `goal_finished` last; spending is the session's recorded usage since the goal started (an
// earlier task does not count); interrupting the goal's fiber aborts the round in progress
// and the goal ends `aborted`; the rounds' reconnect waits run on the TestClock; at most
// MAX_GOAL_ROUNDS rounds run. And through
// the promise facade: an aborted round still hands the host its `abort` before the goal's end;
// a goal aborted before it starts records its start and an `aborted` end after no round.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "@effect/vitest";
import { Chunk, Duration, Effect, Fiber, Stream, TestClock } from "effect";
import type { OmniMessage } from "@penguin/omnimessage";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { allow, collect, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { Goals, goalRequest } from "../../src/goal/goals.js";
import { MAX_GOAL_ROUNDS } from "../../src/goal/goal-loop.js";
import type { Session } from "../../src/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const ioTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)));
const until = (check: () => boolean) =>
  Effect.gen(function* () {
    while (!check()) yield* ioTurn;
  });
const pendingSleeps = Effect.map(TestClock.sleeps(), Chunk.toReadonlyArray);

const goalFileOf = (r: RecordedRequest) => {
  const m = /goal_file: (\S+)/.exec(r.messages.map((x) => x.text ?? "").join("\n"));
  if (!m) throw new Error("no goal_file in request");
  return m[1]!;
};
const setStatus = (status: string): ScriptStep => (r) => ({
  toolCalls: [{ name: "write_file", arguments: { file_path: goalFileOf(r), content: `objective: the objective\nstatus: ${status}\n` } }],
  usage: { input: 300, output: 20 },
});
const eventsOf = (ms: readonly OmniMessage[], type: string) => ms.flatMap((m) => (m.type === "event_msg" && m.payload.type === type ? [m.payload] : []));

/** A session of a fresh harness, inside the test's Effect. */
function sessionWith(script: ScriptStep[]) {
  return Effect.gen(function* () {
    const harness = yield* Effect.promise(() => startHarness({ script }));
    h = harness;
    const session = yield* Effect.promise(() => harness.agent.createSession({ workspaceDir: harness.workspace }));
    return { harness, session };
  });
}

const goalsOf = (session: Session) => Effect.provide(Goals, session.goalsLayer);

describe("the Goals service", () => {
  it.effect("given a session, when a goal runs as a Stream, then goal_started precedes its first request and goal_finished ends the trace", () =>
    Effect.gen(function* () {
      const { session } = yield* sessionWith([setStatus("complete"), { text: "done, checked", usage: { input: 400, output: 10 } }]);
      const goals = yield* goalsOf(session);
      const seen = Chunk.toReadonlyArray(yield* Stream.runCollect(goals.stream(goalRequest("ship the release", "10k", { approve: allow }))));

      const trace = traceOf(session.tracePath);
      const shape = shapeOf(trace);
      expect(shape.indexOf("goal_started")).toBeGreaterThan(-1);
      expect(shape.indexOf("goal_started")).toBeLessThan(shape.indexOf("request_begin"));
      expect(eventsOf(trace, "goal_started")).toEqual([{ type: "goal_started", objective: "ship the release", budget: 10000 }]);
      expect(shape.at(-1)).toBe("goal_finished");
      expect(eventsOf(trace, "goal_finished")).toEqual([{ type: "goal_finished", outcome: "complete", rounds: 1, tokens_used: 320 + 410 }]);
      // The host's stream: the round banner first, the goal's end last.
      expect(seen[0]?.type === "model_msg" && seen[0].payload.type === "text" && seen[0].payload.text.startsWith("[goal]")).toBe(true);
      expect(shapeOf([...seen]).at(-1)).toBe("goal_finished");
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a session that already spent tokens, when a goal runs, then only what the session recorded since the goal started counts", () =>
    Effect.gen(function* () {
      const { harness, session } = yield* sessionWith([
        { text: "an earlier task", usage: { input: 5000, output: 100 } },
        { text: "round one", usage: { input: 300, output: 20 } },
        { text: "round two", usage: { input: 300, output: 20 } },
        { text: "wrapping up", usage: { input: 300, output: 20 } },
      ]);
      yield* Effect.promise(() => collect(session.run("an earlier task", { approve: allow })));
      const goals = yield* goalsOf(session);
      const seen = Chunk.toReadonlyArray(yield* Stream.runCollect(goals.stream(goalRequest("the long job", 500, { approve: allow }))));

      // 320 after round one (below 500), 640 after round two: one wrap-up round, then the end.
      expect(eventsOf(seen, "goal_finished")).toEqual([{ type: "goal_finished", outcome: "budget_limited", rounds: 3, tokens_used: 960 }]);
      // A request's newest [goal] block is its round's (the history holds the earlier ones).
      const banner = (r: RecordedRequest) => r.messages.map((m) => m.text ?? "").filter((t) => t.startsWith("[goal]")).at(-1) ?? "";
      expect(banner(harness.kit.requests[2]!)).toContain("used: 320 tokens");
      expect(banner(harness.kit.requests[3]!)).toContain("this is the last round");
      // The figure is the trace's own: session totals (less cached) at the end minus at the start.
      const trace = traceOf(session.tracePath);
      const net = (m: OmniMessage) => (m.type === "event_msg" && m.payload.type === "token_usage" ? m.payload.session.total - m.payload.session.cache_read : undefined);
      const started = trace.findIndex((m) => m.type === "event_msg" && m.payload.type === "goal_started");
      const before = trace.slice(0, started).flatMap((m) => net(m) ?? []).at(-1) ?? 0;
      const after = trace.flatMap((m) => net(m) ?? []).at(-1) ?? 0;
      expect(after - before).toBe(960);
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a round that hangs, when the goal's fiber is interrupted, then the round records its abort and the goal ends aborted", () =>
    Effect.gen(function* () {
      const { harness, session } = yield* sessionWith([{ text: "a long round that hangs", chunkSize: 2, fault: { kind: "hang", afterEvents: 8 } }]);
      const goals = yield* goalsOf(session);
      const seen: OmniMessage[] = [];
      const goal = yield* Effect.fork(
        Stream.runForEach(goals.stream(goalRequest("long task", undefined, { approve: allow })), (m) => Effect.sync(() => seen.push(m))),
      );
      yield* until(() => seen.some((m) => m.type === "model_msg" && m.payload.type === "partial_text"));
      yield* Fiber.interrupt(goal);

      const shape = shapeOf(traceOf(session.tracePath));
      expect(shape.slice(-2)).toEqual(["abort", "goal_finished"]);
      expect(eventsOf(traceOf(session.tracePath), "goal_finished")).toEqual([{ type: "goal_finished", outcome: "aborted", rounds: 1, tokens_used: 0 }]);
      expect(readFileSync(goalFileOf(harness.kit.requests[0]!), "utf8")).toContain("status: active");
      expect(session.running).toBe(false);
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a first request that fails with 503, when the goal runs in the test's context, then its round waits for the TestClock", () =>
    Effect.gen(function* () {
      const { harness, session } = yield* sessionWith([{ fault: { kind: "http", status: 503 } }, setStatus("complete"), { text: "recovered and done" }]);
      const goals = yield* goalsOf(session);
      const goal = yield* Effect.fork(Stream.runCollect(goals.stream(goalRequest("flaky network", undefined, { approve: allow }))));

      yield* Effect.gen(function* () {
        while ((yield* pendingSleeps).length === 0) yield* ioTurn;
      });
      expect(yield* pendingSleeps).toEqual([2000]);
      yield* TestClock.adjust(Duration.millis(1999));
      expect(harness.kit.requests).toHaveLength(1);
      yield* TestClock.adjust(Duration.millis(1));
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(goal));
      expect(eventsOf(seen, "goal_finished")).toMatchObject([{ outcome: "complete", rounds: 1 }]);
      expect(harness.kit.requests).toHaveLength(3);
      // The agent's injected sleep is the promise facade's; the Effect host's Clock ran this wait.
      expect(harness.sleeps).toEqual([]);
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a round that hangs, when the host's signal aborts it, then the host still reads the round's abort and then the goal's end", () =>
    Effect.gen(function* () {
      const { session } = yield* sessionWith([{ text: "a long round that hangs", chunkSize: 2, fault: { kind: "hang", afterEvents: 8 } }]);
      const controller = new AbortController();
      const seen = yield* Effect.promise(() =>
        collect(session.run("long task", { approve: allow, signal: controller.signal, goal: {} }), (m) => {
          if (m.type === "model_msg" && m.payload.type === "partial_text") controller.abort();
        }),
      );
      expect(shapeOf(seen).slice(-2)).toEqual(["abort", "goal_finished"]);
      expect(shapeOf(traceOf(session.tracePath)).slice(-2)).toEqual(["abort", "goal_finished"]);
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given an aborted signal, when session.run starts a goal, then no round runs and the goal's start and aborted end are recorded", () =>
    Effect.gen(function* () {
      const { harness, session } = yield* sessionWith([{ text: "never asked" }]);
      const controller = new AbortController();
      controller.abort();
      const seen = yield* Effect.promise(() => collect(session.run("anything", { approve: allow, signal: controller.signal, goal: {} })));
      expect(shapeOf(seen)).toEqual(["goal_finished"]);
      expect(eventsOf(seen, "goal_finished")).toEqual([{ type: "goal_finished", outcome: "aborted", rounds: 0, tokens_used: 0 }]);
      expect(shapeOf(traceOf(session.tracePath)).filter((s) => s.startsWith("goal_"))).toEqual(["goal_started", "goal_finished"]);
      expect(harness.kit.requests).toHaveLength(0);
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a model that never marks the goal done and no budget, when the goal runs, then it stops after MAX_GOAL_ROUNDS rounds as budget_limited", () =>
    Effect.gen(function* () {
      const { harness, session } = yield* sessionWith(Array.from({ length: MAX_GOAL_ROUNDS + 1 }, (_, i) => ({ text: `still working (${i + 1})` })));
      const goals = yield* goalsOf(session);
      const seen = Chunk.toReadonlyArray(yield* Stream.runCollect(goals.stream(goalRequest("an endless job", -1, { approve: allow }))));
      expect(eventsOf(seen, "goal_finished")).toMatchObject([{ outcome: "budget_limited", rounds: MAX_GOAL_ROUNDS }]);
      expect(harness.kit.requests).toHaveLength(MAX_GOAL_ROUNDS);
      yield* Effect.promise(() => session.dispose());
    }));

  it.effect("given a budget that is not one, when session.run is asked for a goal, then it refuses before anything is recorded, saying what to write", () =>
    Effect.gen(function* () {
      const { session } = yield* sessionWith([]);
      expect(() => session.run("x", { goal: { budget: "3g" } })).toThrow(/invalid goal budget "3g": use a token count such as 500k, 2m or 120000, or -1/);
      yield* Effect.promise(() => session.dispose());
    }));
});
