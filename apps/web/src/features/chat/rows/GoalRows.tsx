/**
 * Goal mode in the stream and the header (SPEC §3, §10 "goal banners"):
 * - GoalRoundRow: one banner per round, from the round's `[goal]` block (round n, tokens
 *   used before it of the budget); the whole block (rules, the goal file as it stood) opens
 *   on demand, as the model saw it.
 * - GoalFinishedRow: how the goal ended, toned by outcome: complete is good news, blocked
 *   needs the person, budget_limited is a warning, aborted is neutral (a stop or failure
 *   already has its own row above).
 * - GoalChip: the header's one-line "Goal: objective — round n, used X of Y" while a goal
 *   runs; a long objective is cut short, never the progress.
 * All three only draw what the reducer and lib/stream/goal.ts worked out.
 */
import { createSignal, Show } from "solid-js";
import type { GoalOutcome } from "@penguin/omnimessage";
import { formatTokens } from "../../../lib/format";
import type { GoalView } from "../../../lib/stream/goal";
import type { GoalFinishedItem, GoalRoundItem } from "../../../lib/stream/view-model";
import { Icon } from "../../../components/ui/Icon";

/** "used 12.0k of 500k tokens" / "used 12.0k tokens (no limit)". */
export function usedOf(used: number | undefined, budget: number | null | undefined): string {
  const spent = `used ${formatTokens(used ?? 0)}`;
  if (budget === null) return `${spent} tokens (no limit)`;
  if (budget === undefined) return `${spent} tokens`;
  return `${spent} of ${formatTokens(budget)} tokens`;
}

export function GoalRoundRow(props: { item: GoalRoundItem }) {
  const [open, setOpen] = createSignal(false);
  const title = () => (props.item.round === undefined ? "Goal round" : `Goal · round ${props.item.round}`);
  return (
    <div role="group" aria-label={title()} class="rounded-md border-l-4 border-indigo-400 bg-indigo-50 px-3 py-1.5 text-xs text-indigo-900 dark:border-indigo-500 dark:bg-indigo-950 dark:text-indigo-100">
      <div class="flex flex-wrap items-center gap-x-2">
        <button type="button" aria-expanded={open()} onClick={() => setOpen(!open())} class="flex items-center gap-1 font-semibold">
          <span aria-hidden="true">{open() ? "▾" : "▸"}</span>
          <Icon name="goal" class="h-3.5 w-3.5" />
          {title()}
        </button>
        <span class="text-indigo-700 tabular-nums dark:text-indigo-300">{usedOf(props.item.used, props.item.budget)}</span>
      </div>
      <Show when={open()}>
        <pre class="mt-1 whitespace-pre-wrap break-words font-sans text-slate-700 dark:text-slate-300">{props.item.body}</pre>
      </Show>
    </div>
  );
}

const OUTCOME: Record<GoalOutcome, { text: string; look: string }> = {
  complete: { text: "Goal complete", look: "border-green-300 bg-green-50 text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-100" },
  blocked: { text: "Goal blocked: the agent needs your input", look: "border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100" },
  budget_limited: { text: "Goal stopped: the token budget is spent", look: "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100" },
  aborted: { text: "Goal aborted", look: "border-slate-300 bg-slate-50 text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300" },
};

export function GoalFinishedRow(props: { item: GoalFinishedItem }) {
  const outcome = () => OUTCOME[props.item.outcome];
  return (
    <div role="group" aria-label="Goal result" data-outcome={props.item.outcome} class={`flex flex-wrap items-center gap-x-2 rounded-md border px-3 py-1.5 text-xs ${outcome().look}`}>
      <Icon name="goal" class="h-3.5 w-3.5" />
      <span class="font-semibold">{outcome().text}</span>{" "}
      <span class="tabular-nums">
        · {props.item.rounds} {props.item.rounds === 1 ? "round" : "rounds"} · {formatTokens(props.item.tokensUsed)} tokens used
      </span>
    </div>
  );
}

/** The header chip; the caller shows it only while the goal runs. */
export function GoalChip(props: { goal: GoalView }) {
  const objective = () => props.goal.objective ?? "…";
  const where = () => (props.goal.round === 0 ? "starting" : `round ${props.goal.round}, ${usedOf(props.goal.used, props.goal.budget)}`);
  return (
    <p role="status" aria-label="Goal progress" title={`Goal: ${objective()} — ${where()}`} class="flex max-w-full min-w-0 items-center gap-1 rounded-full bg-indigo-100 px-2 py-0.5 text-xs text-indigo-900 dark:bg-indigo-900 dark:text-indigo-100">
      <Icon name="goal" class="h-3 w-3" />
      <span class="font-semibold">Goal:</span> <span class="min-w-0 truncate">{objective()}</span> <span class="shrink-0 tabular-nums">— {where()}</span>
    </p>
  );
}
