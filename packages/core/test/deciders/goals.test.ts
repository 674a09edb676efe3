// The goals decider as given/when/then: a goal's start, each way a round ends it (or lets the
// next start), a stop between rounds, the budget rule; and a property: whatever the rounds
// report, a started goal ends exactly once, and nothing is decided for it afterwards.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goalFinished, goalStarted } from "@penguin/omnimessage";
import { decideGoal, MAX_GOAL_ROUNDS, wrapUpDue, type GoalCommand } from "../../src/deciders/goals.js";
import { AT, appended, given, lines } from "./given.js";

const round = (over: Partial<Extract<GoalCommand, { type: "round_ended" }>> = {}): GoalCommand => ({
  type: "round_ended",
  round: 1,
  fileStatus: "active",
  aborted: false,
  wrapUp: false,
  used: 500,
  at: AT,
  ...over,
});
const finished = (outcome: string, rounds: number, used = 500) => [{ event_msg: { type: "goal_finished", outcome, rounds, tokens_used: used } }];

describe("goals decider", () => {
  it("given a session, when a goal starts, then goal_started with its objective and budget", () => {
    const events = decideGoal(given(), { type: "start", objective: "ship it", budget: 12_000, at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "goal_started", objective: "ship it", budget: 12_000 } }]);
    expect(appended(given(), events).goal).toEqual({ objective: "ship it", budget: 12_000, startedAt: AT });
  });

  it("given a running goal, when a round ends active with budget left, then nothing: the next round starts", () => {
    expect(decideGoal(given(goalStarted("x", 12_000)), round())).toEqual([]);
  });

  it("given a running goal, when GOAL.yaml says complete or blocked, then the goal ends so", () => {
    const state = given(goalStarted("x", -1));
    expect(lines(decideGoal(state, round({ round: 2, fileStatus: "complete" })))).toEqual(finished("complete", 2));
    expect(lines(decideGoal(state, round({ round: 4, fileStatus: "blocked" })))).toEqual(finished("blocked", 4));
  });

  it("given a running goal, when a round ends in an abort, then it ends aborted, whatever the file says", () => {
    expect(lines(decideGoal(given(goalStarted("x", -1)), round({ fileStatus: "complete", aborted: true })))).toEqual(finished("aborted", 1));
  });

  it("given a spent budget, then the next round is the wrap-up, and its end ends the goal budget_limited", () => {
    const state = given(goalStarted("x", 1_000));
    expect([wrapUpDue(state, 999), wrapUpDue(state, 1_000), wrapUpDue(given(goalStarted("x", -1)), 10 ** 9)]).toEqual([false, true, false]);
    expect(lines(decideGoal(state, round({ round: 3, wrapUp: true, used: 1_200 })))).toEqual(finished("budget_limited", 3, 1_200));
  });

  it("given the last allowed round, when it ends active, then the goal ends budget_limited", () => {
    expect(lines(decideGoal(given(goalStarted("x", -1)), round({ round: MAX_GOAL_ROUNDS })))).toEqual(finished("budget_limited", MAX_GOAL_ROUNDS));
  });

  it("given a running goal, when it is stopped between rounds, then it ends aborted with the rounds run", () => {
    expect(lines(decideGoal(given(goalStarted("x", -1)), { type: "stopped", rounds: 2, used: 40, at: AT }))).toEqual(finished("aborted", 2, 40));
  });

  it("given no goal, or one already finished, when a round ends or it is stopped, then nothing", () => {
    const done = given(goalStarted("x", -1), goalFinished({ outcome: "complete", rounds: 1, tokens_used: 5 }));
    for (const state of [given(), done]) {
      expect(decideGoal(state, round({ fileStatus: "complete" }))).toEqual([]);
      expect(decideGoal(state, { type: "stopped", rounds: 1, used: 0, at: AT })).toEqual([]);
      expect(wrapUpDue(state, 10 ** 9)).toBe(false);
    }
  });

  it("property: a goal ends exactly once, as the rounds' reports say, and nothing is decided after", () => {
    const report = fc.record({ fileStatus: fc.constantFrom("active", "active", "complete", "blocked", "garbled"), aborted: fc.boolean(), used: fc.integer({ min: 0, max: 5_000 }) });
    fc.assert(
      fc.property(fc.integer({ min: -1, max: 4_000 }), fc.array(report, { maxLength: 12 }), (budget, reports) => {
        let state = appended(given(), decideGoal(given(), { type: "start", objective: "o", budget: budget === 0 ? -1 : budget, at: AT }));
        let ends = 0;
        let wrapUp = false;
        for (const [i, r] of reports.entries()) {
          const events = decideGoal(state, round({ round: i + 1, wrapUp, ...r }));
          state = appended(state, events);
          ends += events.length;
          const expectEnd = ends === events.length && (r.aborted || r.fileStatus === "complete" || r.fileStatus === "blocked" || wrapUp);
          if (events.length > 0) expect(expectEnd).toBe(true);
          wrapUp = wrapUp || wrapUpDue(state, r.used);
        }
        expect(ends).toBeLessThanOrEqual(1);
        if (ends === 1) expect(state.goal?.outcome).toBeDefined();
        else expect(decideGoal(state, { type: "stopped", rounds: reports.length, used: 0, at: AT })).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });
});
