/**
 * What pressing Send means for a draft, decided in one pure function so the new-chat page
 * and an open session agree and the rules are tested without a DOM:
 * - `/compact` and `/model …` are commands (only without attachments: a slash before files is
 *   just text, as people paste paths);
 * - `/<skill> text` becomes a `[use_skills]` block before the text;
 * - a goal comes from `/goal [budget] objective` or from the composer's goal panel (its
 *   budget field; the message is the objective). A budget typed after `/goal` wins over the
 *   panel's. The objective must not be empty and the budget must have a shape the server
 *   takes, else the plan is an error and nothing is sent (the draft stays as it is);
 * - anything else is a task: the text plus the attachments.
 */
import type { TaskInputItem } from "../../api/types";
import { isBudget } from "../../lib/stream/goal";
import type { Draft } from "./Composer";
import { parseSlash, skillPrompt, type SlashItem } from "./slash-commands";

export type SendPlan =
  | { kind: "compact" }
  | { kind: "model"; arg: string }
  | { kind: "error"; message: string }
  /** `goal.budget` absent: no limit. */
  | { kind: "task"; items: TaskInputItem[]; goal: { budget?: string } | undefined };

export const BUDGET_HINT = "Use a token count such as 500k, 2m or 120000 (-1 or empty: no limit).";

export function planSend(draft: Draft, slash: readonly SlashItem[]): SendPlan {
  const parsed = parseSlash(draft.text.trim(), slash);
  const cmd = parsed?.kind === "goal" || draft.attachments.length === 0 ? parsed : undefined;
  if (cmd?.kind === "compact") return { kind: "compact" };
  if (cmd?.kind === "model") return { kind: "model", arg: cmd.arg };
  const wantsGoal = cmd?.kind === "goal" || draft.goal !== undefined;
  const body = cmd?.kind === "skill" ? skillPrompt(cmd.name, cmd.rest) : cmd?.kind === "goal" ? cmd.objective : draft.text;
  const items: TaskInputItem[] = [...(body.trim() === "" ? [] : [{ type: "text" as const, text: body }]), ...draft.attachments.map((a) => a.item)];
  if (!wantsGoal) return { kind: "task", items, goal: undefined };
  if (body.trim() === "") return { kind: "error", message: "Write the goal's objective: the message is what the agent works toward." };
  const typed = cmd?.kind === "goal" ? cmd.budget : undefined;
  const budget = (typed ?? draft.goal?.budget ?? "").trim();
  if (budget === "") return { kind: "task", items, goal: {} };
  if (!isBudget(budget)) return { kind: "error", message: `“${budget}” is not a budget. ${BUDGET_HINT}` };
  return { kind: "task", items, goal: { budget } };
}
