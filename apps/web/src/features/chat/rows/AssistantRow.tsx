/** The model's text, rendered as markdown; a caret shows while it is still streaming. */
import { Show } from "solid-js";
import { Markdown } from "../../../components/Markdown";
import type { AssistantTextItem } from "../../../lib/stream/view-model";

export function AssistantRow(props: { item: AssistantTextItem }) {
  return (
    <div class="text-sm" aria-busy={props.item.streaming}>
      <Markdown text={props.item.text} />
      <Show when={props.item.streaming}>
        <span aria-hidden="true" class="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-slate-400 align-text-bottom" />
      </Show>
      <Show when={props.item.stopReason !== undefined && props.item.stopReason !== "completed"}>
        <p class="mt-1 text-xs text-amber-700 dark:text-amber-400">(ended: {props.item.stopReason})</p>
      </Show>
    </div>
  );
}
