// Live subagents as resources in a Scope (subagents/subagents.ts), through real sessions
// against the testkit model and real `sleep` processes:
// - given a parent with two live background subagents whose tools each started a `sleep` in
//   the background, when the parent is disposed, then every child is gone from its list and
//   every `sleep` pid is gone (process.kill(pid, 0) answers ESRCH);
// - given the Subagents service in a Scope with two such children, when the Scope closes, then
//   each child is killed, its session refuses a new task (it was disposed), and its `sleep`
//   pids are gone; the same when the fiber that holds the SubagentsLive Layer is interrupted;
// - given a running child, when a wait's window passes on the TestClock, then the wait answers
//   `window` (the child keeps running), and `ended` once the task has ended.
import { afterEach, describe, expect, it } from "@effect/vitest";
import { Duration, Effect, Exit, Fiber, Scope, TestClock } from "effect";
import { allow, collect, startHarness, TEST_MODEL, TEST_PROVIDER, type Harness } from "../helpers/harness.js";
import { leftovers, sleepMarker, waitUntil } from "../environment/helpers.js";
import { routeConversations, runSubagent, type Turn } from "./helpers/conversations.js";
import { makeSubagents, Subagents, SubagentsLive } from "../../src/subagents/subagents.js";
import { createSubagentRunner } from "../../src/subagents/runner.js";
import type { Child } from "../../src/subagents/child.js";

let h: Harness | undefined;
const markers: string[] = [];
afterEach(async () => {
  for (const marker of markers.splice(0)) {
    for (const pid of pidsOf(marker)) if (!gone(pid)) process.kill(pid, "SIGKILL");
  }
  await h?.cleanup();
  h = undefined;
});

function marked(): string {
  const marker = sleepMarker();
  markers.push(marker);
  return marker;
}

/** Pids of the live processes whose command line carries `marker`. */
function pidsOf(marker: string): number[] {
  return leftovers(marker).map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** True once no process has this pid (signal 0 probes without signalling). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** A child that starts `sleep <marker>` in the background and answers at once. */
function backgroundSleeper(marker: string): Turn[] {
  return [
    { toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep ${marker}`, run_in_background: true, description: "sleep in the background" } }] },
    { text: "sleeping in the background" },
  ];
}

describe("live subagents in a Scope", () => {
  it("given a parent with two background subagents running background sleeps, when the parent is disposed, then the children and their sleeps are gone", async () => {
    h = await startHarness();
    const [first, second] = [marked(), marked()];
    const conv = routeConversations(h.kit, {
      "PARENT-TWO": [
        {
          toolCalls: [
            runSubagent({ prompt: "CHILD-ONE: sleep", run_in_background: true, description: "first sleeper" }),
            runSubagent({ prompt: "CHILD-TWO: sleep", run_in_background: true, description: "second sleeper" }),
          ],
        },
        { text: "both started" },
      ],
      "CHILD-ONE": backgroundSleeper(first),
      "CHILD-TWO": backgroundSleeper(second),
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-TWO: start two sleepers", { approve: allow }));
    await waitUntil(() => pidsOf(first).length > 0 && pidsOf(second).length > 0, "both children's sleeps to start");
    await waitUntil(() => session.subagents().length === 2 && session.subagents().every((c) => c.status === "idle"), "both children to end their tasks");
    const pids = [...pidsOf(first), ...pidsOf(second)];

    await session.dispose();

    expect(session.subagents()).toEqual([]);
    await waitUntil(() => pids.every(gone), `the sleeps (pids ${pids.join(", ")}) to be gone`);
    expect(conv.errors).toEqual([]);
  });

  it.effect("given the Subagents service with two children running background sleeps, when its Scope closes, then each child is killed and disposed and its sleeps are gone", () =>
    Effect.gen(function* () {
      const harness = yield* Effect.promise(() => startHarness());
      h = harness;
      const [first, second] = [marked(), marked()];
      const conv = routeConversations(harness.kit, { "CHILD-ONE": backgroundSleeper(first), "CHILD-TWO": backgroundSleeper(second) });
      const runner = createSubagentRunner({
        workspaceDir: harness.workspace,
        agentFor: async () => harness.agent,
        parent: () => ({ provider: TEST_PROVIDER, modelId: TEST_MODEL, thinkingLevel: "none" }),
      });
      const scope = yield* Scope.make();
      const subagents = yield* Scope.extend(makeSubagents({ runner }), scope);
      const children: Child[] = [];
      for (const prompt of ["CHILD-ONE: sleep", "CHILD-TWO: sleep"]) {
        const child = yield* subagents.start({});
        yield* subagents.input(child, prompt, allow, prompt);
        expect(yield* subagents.wait(child, Duration.minutes(5))).toBe("ended");
        children.push(child);
      }
      expect((yield* subagents.list).map((c) => c.status)).toEqual(["idle", "idle"]);
      yield* Effect.promise(() => waitUntil(() => pidsOf(first).length > 0 && pidsOf(second).length > 0, "both children's sleeps to start"));
      const pids = [...pidsOf(first), ...pidsOf(second)];

      yield* Scope.close(scope, Exit.void);

      expect(children.map((c) => c.killed)).toEqual([true, true]);
      for (const child of children) {
        const again = yield* Effect.promise(() => collect(child.handle.run({ prompt: "one more" })).then(() => "ran", (err: unknown) => String(err)));
        expect(again).toMatch(/is disposed/);
      }
      expect(yield* subagents.list).toEqual([]);
      const refused = yield* Effect.flip(subagents.find(children[0]!.id));
      expect(refused.message).toContain("is no longer available: the session was closed");
      yield* Effect.promise(() => waitUntil(() => pids.every(gone), `the sleeps (pids ${pids.join(", ")}) to be gone`));
      expect(conv.errors).toEqual([]);
    }));

  it.effect("given a fiber that uses the SubagentsLive Layer with a child running a background sleep, when the fiber is interrupted (aborted), then the child is released", () =>
    Effect.gen(function* () {
      const harness = yield* Effect.promise(() => startHarness());
      h = harness;
      const marker = marked();
      const conv = routeConversations(harness.kit, { "CHILD-ONE": backgroundSleeper(marker) });
      const runner = createSubagentRunner({
        workspaceDir: harness.workspace,
        agentFor: async () => harness.agent,
        parent: () => ({ provider: TEST_PROVIDER, modelId: TEST_MODEL, thinkingLevel: "none" }),
      });
      const children: Child[] = [];
      const host = yield* Effect.fork(
        Effect.gen(function* () {
          const subagents = yield* Subagents;
          const child = yield* subagents.start({});
          children.push(child);
          yield* subagents.input(child, "CHILD-ONE: sleep", allow, "sleeper");
          yield* subagents.wait(child, Duration.minutes(5));
          return yield* Effect.never;
        }).pipe(Effect.provide(SubagentsLive({ runner }))),
      );
      yield* Effect.promise(() => waitUntil(() => children[0]?.running === false && pidsOf(marker).length > 0, "the child's sleep to start"));
      const pids = pidsOf(marker);

      yield* Fiber.interrupt(host);

      expect(children[0]?.killed).toBe(true);
      yield* Effect.promise(() => waitUntil(() => pids.every(gone), `the sleep (pids ${pids.join(", ")}) to be gone`));
      expect(conv.errors).toEqual([]);
    }));

  it.effect("given a running child, when a wait's window passes on the TestClock, then the wait answers window, and ended once the task ends", () =>
    Effect.gen(function* () {
      const harness = yield* Effect.promise(() => startHarness());
      h = harness;
      const conv = routeConversations(harness.kit, {
        "CHILD-HELD": [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "true", description: "a quick check" } }] }, { text: "checked" }],
      });
      const runner = createSubagentRunner({
        workspaceDir: harness.workspace,
        agentFor: async () => harness.agent,
        parent: () => ({ provider: TEST_PROVIDER, modelId: TEST_MODEL, thinkingLevel: "none" }),
      });
      // The child's task is held open by its tool call's approval until the test releases it.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const approveLater = async () => {
        await held;
        return "allow" as const;
      };
      yield* Effect.scoped(
        Effect.gen(function* () {
          const subagents = yield* makeSubagents({ runner });
          const child = yield* subagents.start({});
          yield* subagents.input(child, "CHILD-HELD: check", approveLater, "held");
          const waiting = yield* Effect.fork(subagents.wait(child, Duration.seconds(30)));
          while ((yield* TestClock.sleeps()).length === 0) yield* Effect.yieldNow();
          yield* TestClock.adjust(Duration.millis(29_999));
          expect(waiting.unsafePoll()).toBeNull();
          yield* TestClock.adjust(Duration.millis(1));
          expect(yield* Fiber.join(waiting)).toBe("window");
          expect(child.running).toBe(true);

          release();
          expect(yield* subagents.wait(child, Duration.seconds(30))).toBe("ended");
          expect(child.lastReport?.status).toBe("completed");
        }),
      );
      expect(conv.errors).toEqual([]);
    }));
});
