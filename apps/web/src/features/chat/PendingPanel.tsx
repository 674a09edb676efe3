/**
 * What the person sent while a task ran and that has not reached the model yet: steering
 * notes (delivered at the next turn) and queued follow-ups (run after the task). Each can
 * be recalled: it is withdrawn on the server and put back into the composer.
 */
import { For, Show } from "solid-js";
import type { PendingFollowUp, SteeringNote } from "../../api/types";
import { Button } from "../../components/ui/Button";

function textOf(f: PendingFollowUp): string {
  const text = f.input.flatMap((i) => (i.type === "text" ? [i.text] : [])).join(" ");
  const files = f.input.length - f.input.filter((i) => i.type === "text").length;
  return `${text}${files > 0 ? ` (+${files} attachment${files > 1 ? "s" : ""})` : ""}`;
}

export function PendingPanel(props: { steering: readonly SteeringNote[]; followUps: readonly PendingFollowUp[]; onRecall(kind: "steer" | "followUp", id: string): void }) {
  return (
    <Show when={props.steering.length > 0 || props.followUps.length > 0}>
      <ul aria-label="Pending messages" class="flex flex-col gap-1">
        <For each={props.steering}>
          {(s) => (
            <li class="flex items-center gap-2 rounded-md bg-amber-50 px-2 py-1 text-xs dark:bg-amber-950">
              <span class="font-medium text-amber-800 dark:text-amber-200">Steering</span>
              <span class="min-w-0 flex-1 truncate">{s.text}</span>
              <Button size="sm" variant="ghost" onClick={() => props.onRecall("steer", s.id)} aria-label={`Recall steering: ${s.text}`}>
                Recall
              </Button>
            </li>
          )}
        </For>
        <For each={props.followUps}>
          {(f, i) => (
            <li class="flex items-center gap-2 rounded-md bg-slate-100 px-2 py-1 text-xs dark:bg-slate-800">
              <span class="font-medium">Queued {i() + 1}</span>
              <span class="min-w-0 flex-1 truncate">{textOf(f)}</span>
              <Button size="sm" variant="ghost" onClick={() => props.onRecall("followUp", f.id)} aria-label={`Recall queued message ${i() + 1}`}>
                Recall
              </Button>
            </li>
          )}
        </For>
      </ul>
    </Show>
  );
}
