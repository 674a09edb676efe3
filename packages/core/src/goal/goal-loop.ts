/**
 * Goal mode: a task the agent keeps working on, round after round, until it says the goal is
 * complete or blocked, the budget runs out, or the user stops it.
 *
 * Each round is one ordinary run of the session whose input is a `[goal]` block (the round,
 * the goal file's path and content, the budget, the rules) followed by the body: the user's
 * original input in round 1, the objective afterwards. After each round the harness reads
 * GOAL.yaml: `complete` or `blocked` ends the goal; `active` starts the next round. A round
 * that ends in `abort` (the user, max_turns, a failure) ends the goal as `aborted` and leaves
 * the file `active`, a clean point to resume from. When the budget is spent, one last
 * wrap-up round is granted, then the goal ends `budget_limited`. At most 100 rounds. The
 * goal always ends with a `goal_finished` event, recorded in the trace and streamed.
 */
import { goalFinished, userText, wrapMarker, formatFields, type GoalOutcome, type OmniMessage } from "@penguin/omnimessage";
import { formatBudget, spentBy, UNLIMITED } from "./budget.js";
import { goalFilePath, readGoalFile, writeGoalFile } from "./goal-file.js";

export const MAX_GOAL_ROUNDS = 100;

export interface GoalLoopDeps {
  scratchpadDir: string;
  /** Runs one round (one session task) and yields its messages. */
  runRound: (input: OmniMessage[]) => AsyncGenerator<OmniMessage, void>;
  /** Records a message in the trace (goal_finished). */
  record: (m: OmniMessage) => void;
}

function goalBlock(round: number, file: string, content: string, budget: number, used: number, wrapUp: boolean): string {
  const head = formatFields({ round, goal_file: file, budget: formatBudget(budget), used: `${used} tokens` });
  const rules = [
    "Work toward the objective in the goal file. Check your work with evidence (run the tests, read the output, look at the files) before you claim anything.",
    "When the objective is fully achieved, set `status: complete` in the goal file. Never shrink or reinterpret the objective to get there.",
    "Set `status: blocked` only when you cannot progress without the user, and only after at least 3 rounds; say why in the file.",
    "Keep a plan in PLAN.md next to the goal file and update it every round.",
  ];
  const extra = wrapUp ? "\nThe token budget is spent: this is the last round. Stop starting new work, record the state in PLAN.md and set the status that is true now." : "";
  return wrapMarker("goal", `${head}\nRules:\n${rules.map((r) => `- ${r}`).join("\n")}${extra}\nCurrent goal file:\n${content.trimEnd()}`);
}

export async function* runGoal(input: OmniMessage[], objective: string, budget: number, deps: GoalLoopDeps): AsyncGenerator<OmniMessage, GoalOutcome> {
  const file = goalFilePath(deps.scratchpadDir);
  let content = await writeGoalFile(file, objective);
  let used = 0;
  let outcome: GoalOutcome = "aborted";
  let rounds = 0;
  let wrapUp = false;
  for (let round = 1; round <= MAX_GOAL_ROUNDS; round++) {
    rounds = round;
    const block = userText(goalBlock(round, file, content, budget, used, wrapUp), { sender: "harness" });
    const body = round === 1 ? input : [userText(`Continue working on the objective:\n${objective}`, { sender: "harness" })];
    let aborted = false;
    // The round's [goal] block is shown to the host (a round banner); the engine records it
    // in the trace when it sends it.
    yield block;
    for await (const m of deps.runRound([block, ...body])) {
      used += spentBy(m);
      if (m.type === "event_msg" && m.payload.type === "abort" && m.origin === undefined) aborted = true;
      yield m;
    }
    const state = await readGoalFile(file);
    content = state.text;
    if (aborted) {
      outcome = "aborted";
      break;
    }
    if (state.status === "complete" || state.status === "blocked") {
      outcome = state.status;
      break;
    }
    if (wrapUp) {
      outcome = "budget_limited";
      break;
    }
    if (budget !== UNLIMITED && used >= budget) wrapUp = true;
    if (round === MAX_GOAL_ROUNDS) outcome = "budget_limited";
  }
  const done = goalFinished({ outcome, rounds, tokens_used: used });
  deps.record(done);
  yield done;
  return outcome;
}
