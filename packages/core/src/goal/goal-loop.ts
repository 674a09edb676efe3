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
 * goal starts with a `goal_started` event (objective, budget) and always ends with a
 * `goal_finished` one, both decided by the goals decider (deciders/goals.ts) and recorded here.
 *
 * An Effect program (`goalProgram`), run by the `Goals` service (goals.ts). It is
 * uninterruptible except while a round runs: an abort is the fiber's interruption, which
 * aborts the round in progress (the round still hands over its `abort` bookkeeping), and the
 * program runs straight on to record `goal_finished` with `aborted`. Spending is read from the
 * session's usage as its trace records it (the `session` totals of the last `token_usage`),
 * relative to where the goal started, plus the usage children report on the parent's stream
 * (their `token_usage` events, forwarded with `origin`; their own traces hold them). GOAL.yaml
 * is the program's one file edge. `runGoal` is the promise facade the SDK's `session.run`
 * uses: the program's fiber on the default runtime, its messages through a channel, the
 * caller's AbortSignal bridged to the fiber's interruption.
 */
import {
  userText,
  wrapMarker,
  formatFields,
  type GoalOutcome,
  type OmniMessage,
  type TokenCounts,
} from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import { Cause, Data, Effect, Exit, type Clock } from "effect";
import type { ApproveFn } from "../interfaces.js";
import { fiberMessages } from "../engine/fiber-messages.js";
import { isAborted } from "../engine/abort.js";
import { formatBudget, spentBy } from "./budget.js";
import { decideGoal, MAX_GOAL_ROUNDS, wrapUpDue, type GoalCommand, type GoalFacts } from "../deciders/goals.js";
import { goalFilePath, readGoalFile, writeGoalFile } from "./goal-file.js";

export { MAX_GOAL_ROUNDS };

/** The options every round of a goal runs with. */
export interface RoundOptions {
  approve?: ApproveFn;
  thinkingLevel?: ThinkingLevel;
}

/** A goal to run: the Human's input, the objective it states, the budget in tokens (-1: none). */
export interface GoalRequest {
  input: OmniMessage[];
  objective: string;
  budget: number;
  round?: RoundOptions;
}

/** Where a goal's messages go as they come (the host's stream). */
export type Deliver = (m: OmniMessage) => void;

/** What a goal needs of its session. */
export interface GoalSession {
  /** The session's scratchpad, where GOAL.yaml lives. */
  readonly scratchpadDir: string;
  /**
   * One round: one task of the session over `input`, each message delivered as it comes.
   * Interrupting it aborts the task; it still delivers the task's abort bookkeeping (the
   * `abort` event) before it ends.
   */
  round(input: OmniMessage[], options: RoundOptions, deliver: Deliver): Effect.Effect<void>;
  /** Append a fact to the session's trace. */
  record(m: OmniMessage): Effect.Effect<void>;
  /** The session's usage as its trace records it (the last `token_usage`'s session totals). */
  readonly usage: Effect.Effect<TokenCounts>;
  /** The session's goal as its fold holds it (what `record` appended included). */
  readonly state: Effect.Effect<GoalFacts>;
}

const now = () => new Date().toISOString();

/** The outcome the goal's `goal_finished` records (`aborted` when none was recorded). */
function outcomeOf(events: readonly OmniMessage[]): GoalOutcome {
  for (const m of events) if (m.type === "event_msg" && m.payload.type === "goal_finished") return m.payload.outcome;
  return "aborted";
}

/** GOAL.yaml could not be written: the goal cannot start. */
export class GoalFileError extends Data.TaggedError("GoalFileError")<{ readonly file: string; readonly message: string }> {}

/** Tokens that count against a budget: everything but cached prompt tokens. */
function spendable(usage: TokenCounts): number {
  return Math.max(0, usage.total - usage.cache_read);
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

const writeGoal = (file: string, objective: string) =>
  Effect.tryPromise({
    try: () => writeGoalFile(file, objective),
    catch: (err) =>
      new GoalFileError({
        file,
        message: `could not write the goal file ${file}: ${err instanceof Error ? err.message : String(err)}; check that the session's scratchpad folder is writable`,
      }),
  });

/** The goal as an Effect program; see the file comment. Its outcome, or the file error that kept it from starting. */
export function goalProgram(request: GoalRequest, session: GoalSession, deliver: Deliver): Effect.Effect<GoalOutcome, GoalFileError> {
  return Effect.gen(function* () {
    const { input, objective, budget } = request;
    const options = request.round ?? {};
    const file = goalFilePath(session.scratchpadDir);
    const startedAt = spendable(yield* session.usage);
    // The goal's facts are the goals decider's (deciders/goals.ts): its events are appended, and
    // each next decision reads them back from the session's fold.
    const decide = (command: GoalCommand) =>
      Effect.gen(function* () {
        const events = decideGoal(yield* session.state, command);
        for (const m of events) yield* session.record(m);
        return events;
      });
    yield* decide({ type: "start", objective, budget, at: now() });
    let content = yield* writeGoal(file, objective);
    let byChildren = 0;
    const spent = Effect.map(session.usage, (usage) => Math.max(0, spendable(usage) - startedAt) + byChildren);
    let used = 0;
    let rounds = 0;
    let wrapUp = false;
    let finished: readonly OmniMessage[] = [];
    for (let round = 1; round <= MAX_GOAL_ROUNDS; round++) {
      // Aborted between rounds: no new round starts.
      if (yield* isAborted) break;
      rounds = round;
      const block = userText(goalBlock(round, file, content, budget, used, wrapUp), { sender: "harness" });
      const body = round === 1 ? input : [userText(`Continue working on the objective:\n${objective}`, { sender: "harness" })];
      let abortSeen = false;
      // The round's [goal] block is shown to the host (a round banner); the engine records it
      // in the trace when it sends it.
      deliver(block);
      const ended = yield* Effect.exit(
        Effect.interruptible(
          session.round([block, ...body], options, (m) => {
            if (m.origin !== undefined) byChildren += spentBy(m);
            else if (m.type === "event_msg" && m.payload.type === "abort") abortSeen = true;
            deliver(m);
          }),
        ),
      );
      if (Exit.isFailure(ended) && !Exit.isInterrupted(ended)) return yield* Effect.failCause(ended.cause);
      const goalFile = yield* Effect.promise(() => readGoalFile(file));
      content = goalFile.text;
      used = yield* spent;
      finished = yield* decide({ type: "round_ended", round, fileStatus: goalFile.status, aborted: abortSeen || Exit.isInterrupted(ended), wrapUp, used, at: now() });
      if (finished.length > 0) break;
      if (wrapUpDue(yield* session.state, used)) wrapUp = true;
    }
    if (finished.length === 0) finished = yield* decide({ type: "stopped", rounds, used: yield* spent, at: now() });
    for (const m of finished) deliver(m);
    const outcome = outcomeOf(finished);
    return outcome;
  }).pipe(Effect.uninterruptible);
}

/**
 * The promise facade: run `program` (a goal delivering its messages) on the default runtime
 * and yield its messages. `signal` aborts it (the fiber's interruption); so does the host
 * leaving the loop early. `clock` replaces the default Clock (the SDK's injected sleep).
 */
export async function* runGoal(
  program: (deliver: Deliver) => Effect.Effect<unknown, GoalFileError>,
  options: { signal?: AbortSignal | undefined; clock?: Clock.Clock | undefined } = {},
): AsyncGenerator<OmniMessage, void> {
  // The program always starts (so a goal that is aborted at once still records its start and
  // its `aborted` end); it yields once first, so an abort signalled already is seen by its
  // first check rather than in the middle of a round.
  yield* fiberMessages(program, {
    signal: options.signal,
    clock: options.clock,
    failure: (cause) => {
      const failure = Cause.failureOption(cause);
      return failure._tag === "Some" ? new Error(failure.value.message) : Cause.squash(cause);
    },
  });
}
