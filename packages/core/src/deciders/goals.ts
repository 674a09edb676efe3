/**
 * The goals decider: a goal's start and end as events, and the budget rule between rounds.
 *
 * - `start`: `goal_started` with the objective and the budget (tokens; -1: none).
 * - `round_ended`: after each round, read with what GOAL.yaml says. A round that ended in an
 *   abort ends the goal `aborted`; `complete` or `blocked` ends it so; the end of the wrap-up
 *   round (granted once the budget is spent) or of the last allowed round ends it
 *   `budget_limited`; otherwise nothing, and the next round starts.
 * - `stopped`: the goal was stopped between rounds: it ends `aborted`.
 * Every end is one `goal_finished` with the rounds run and the tokens used. A command for a
 * goal the fold does not hold running (none started, or already finished) is nothing.
 *
 * `wrapUpDue` is the budget rule: the goal's spending (relative to its start) has reached its
 * budget, so the next round is the last.
 */
import { goalFinished, goalStarted, type GoalOutcome } from "@penguin/omnimessage";
import type { SessionState } from "@penguin/trace";
import type { Decider } from "./decider.js";

export const MAX_GOAL_ROUNDS = 100;
/** A budget of -1: no limit. */
export const UNLIMITED = -1;

export type GoalCommand =
  | { readonly type: "start"; readonly objective: string; readonly budget: number; readonly at: string }
  | {
      readonly type: "round_ended";
      readonly round: number;
      /** The `status` GOAL.yaml holds after the round. */
      readonly fileStatus: string;
      /** The round ended in an abort (the user, max_turns, a failure). */
      readonly aborted: boolean;
      /** This round was the wrap-up granted when the budget ran out. */
      readonly wrapUp: boolean;
      /** Tokens the goal has used so far. */
      readonly used: number;
      readonly at: string;
    }
  | { readonly type: "stopped"; readonly rounds: number; readonly used: number; readonly at: string };

export type GoalFacts = Pick<SessionState, "goal">;

function running(state: GoalFacts): boolean {
  return state.goal !== undefined && state.goal.outcome === undefined;
}

/** The budget is spent: the next round is the wrap-up (never for an unlimited goal, or none running). */
export function wrapUpDue(state: GoalFacts, used: number): boolean {
  return running(state) && state.goal!.budget !== UNLIMITED && used >= state.goal!.budget;
}

export const decideGoal: Decider<GoalCommand, GoalFacts> = (state, command) => {
  const at = command.at;
  if (command.type === "start") return [goalStarted(command.objective, command.budget, { at })];
  if (!running(state)) return [];
  const end = (outcome: GoalOutcome, rounds: number) => [goalFinished({ outcome, rounds, tokens_used: command.used }, { at })];
  if (command.type === "stopped") return end("aborted", command.rounds);
  const { round } = command;
  if (command.aborted) return end("aborted", round);
  if (command.fileStatus === "complete" || command.fileStatus === "blocked") return end(command.fileStatus, round);
  if (command.wrapUp || round >= MAX_GOAL_ROUNDS) return end("budget_limited", round);
  return [];
};
