/**
 * Goal mode on the client (SPEC §3): reading a round's `[goal]` block, checking a budget as
 * typed, and keeping one view of the running goal from the three places that describe it.
 *
 * - The block's header is `key: value` lines (round, goal_file, budget, used) written with
 *   the protocol's `formatFields`; it is read here with `parseFields`, line by line, only up
 *   to the first line that is not a field with a value (`Rules:`), so the goal file's own
 *   YAML further down (which the model edits) can never pose as the header.
 * - Budgets are what the server's parser takes: `500k`, `2m`, `1.5m`, `120000`, or `-1` for
 *   no limit. The client only checks the shape (the server stays the judge, and answers 400
 *   on a budget it refuses); after `/goal` a bare number counts as a budget only from 1000
 *   up, so "/goal 3 failing tests…" keeps its 3 in the objective.
 * - `mergeGoal` folds the goal's sources into one `GoalView`: the `GET S/goal` snapshot, the
 *   server events `goal_started` / `goal_round` / `goal_finished`, and the rounds the
 *   reducer read from `[goal]` blocks (the only source of `used` while a goal runs: the
 *   server's running figure stays 0 until the goal ends). Rounds and tokens only grow, so
 *   taking the larger value makes the order in which these arrive irrelevant.
 */
import { parseFields, type GoalOutcome } from "@penguin/omnimessage";
import type { GoalState, GoalStatus } from "../../api/types";

/** The header fields of one round's `[goal]` block. */
export interface GoalBlock {
  round: number | undefined;
  goalFile: string | undefined;
  /** null: no limit. */
  budget: number | null | undefined;
  /** Tokens spent before this round began. */
  used: number | undefined;
}

function tokens(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The leading `key: value` lines of a block body (stops at the first other line). */
function headerOf(body: string): Record<string, string> {
  const head: string[] = [];
  for (const line of body.split("\n")) {
    const value = Object.values(parseFields(line))[0];
    if (value === undefined || value.trim() === "") break;
    head.push(line);
  }
  return parseFields(head.join("\n"));
}

export function goalBlockOf(body: string): GoalBlock {
  const f = headerOf(body);
  const budget = f.budget?.trim() === "unlimited" ? null : tokens(f.budget);
  return { round: tokens(f.round), goalFile: f.goal_file?.trim() || undefined, budget, used: tokens(f.used) };
}

const BUDGET = /^(?:-1|\d+(?:\.\d+)?\s*[kKmM]?)$/;

/** True when `text` is a budget the server takes (blank is not: blank means no limit). */
export function isBudget(text: string): boolean {
  const t = text.trim();
  if (!BUDGET.test(t)) return false;
  if (t === "-1") return true;
  const unit = t.slice(-1).toLowerCase();
  const n = Number.parseFloat(t) * (unit === "k" ? 1_000 : unit === "m" ? 1_000_000 : 1);
  return Math.round(n) >= 1;
}

/** Splits what follows `/goal` into an optional leading budget and the objective. */
export function splitGoalArgs(rest: string): { budget: string | undefined; objective: string } {
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(rest.trim());
  const first = m?.[1] ?? "";
  const bare = /^\d+$/.test(first);
  if (m !== null && isBudget(first) && (!bare || Number(first) >= 1000)) return { budget: first, objective: (m[2] ?? "").trim() };
  return { budget: undefined, objective: rest.trim() };
}

/** The running (or last) goal as the chat shows it. */
export interface GoalView {
  /** undefined until the server says it (a reload that saw only the blocks). */
  objective: string | undefined;
  status: GoalStatus;
  /** null: no limit; undefined: not known yet. */
  budget: number | null | undefined;
  used: number;
  /** The current round (0 before the first one starts). */
  round: number;
}

export type GoalUpdate =
  | { type: "snapshot"; goal: GoalState }
  | { type: "started"; objective: string; budget: number | null }
  | { type: "round"; round: number; used: number; budget?: number | null | undefined }
  | { type: "finished"; outcome: GoalOutcome; rounds: number; used: number };

export function mergeGoal(prev: GoalView | undefined, u: GoalUpdate): GoalView {
  switch (u.type) {
    case "started":
      return { objective: u.objective, status: "active", budget: u.budget, used: 0, round: 0 };
    case "snapshot": {
      const g = u.goal;
      const snap: GoalView = { objective: g.objective, status: g.status, budget: g.budget, used: g.used, round: g.rounds };
      if (prev === undefined) return snap;
      // Another objective: the live view already follows a newer goal than this answer.
      if (prev.objective !== undefined && prev.objective !== g.objective) return prev;
      return {
        objective: g.objective,
        status: prev.status !== "active" ? prev.status : g.status,
        budget: g.budget,
        used: Math.max(prev.used, g.used),
        round: Math.max(prev.round, g.rounds),
      };
    }
    case "round": {
      const base: GoalView = prev ?? { objective: undefined, status: "active", budget: undefined, used: 0, round: 0 };
      return {
        ...base,
        budget: base.budget === undefined ? u.budget : base.budget,
        used: Math.max(base.used, u.used),
        round: Math.max(base.round, u.round),
      };
    }
    case "finished": {
      const base: GoalView = prev ?? { objective: undefined, status: "active", budget: undefined, used: 0, round: 0 };
      return { ...base, status: u.outcome, used: Math.max(base.used, u.used), round: u.rounds };
    }
  }
}
