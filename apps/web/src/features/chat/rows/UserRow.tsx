/**
 * What the person sent: text (shown as written, not as markdown), image thumbnails, file
 * chips, skill chips; steering notes and scheduled prompts are labelled as such.
 */
import { For, Show } from "solid-js";
import type { UserItem } from "../../../lib/stream/view-model";
import { Icon } from "../../../components/ui/Icon";

export function UserRow(props: { item: UserItem }) {
  const label = () => {
    const item = props.item;
    return item.variant === "steer" ? "Steering" : item.variant === "scheduled" ? "Scheduled task" : item.sender === "parent_agent" ? "From the parent agent" : undefined;
  };
  return (
    <div class="flex justify-end">
      <div class="max-w-[85%] rounded-2xl rounded-br-sm bg-blue-50 px-3 py-2 text-sm dark:bg-blue-950">
        <Show when={label()}>{(l) => <div class="mb-1 text-xs font-medium text-blue-700 dark:text-blue-300">{l()}</div>}</Show>
        <Show when={props.item.skills.length > 0}>
          <div class="mb-1 flex flex-wrap gap-1">
            <For each={props.item.skills}>{(s) => <span class="rounded-full bg-purple-100 px-2 py-0.5 text-xs text-purple-800 dark:bg-purple-900 dark:text-purple-100">skill: {s}</span>}</For>
          </div>
        </Show>
        <Show when={props.item.text !== ""}>
          <p class="whitespace-pre-wrap break-words">{props.item.text}</p>
        </Show>
        <Show when={props.item.images.length > 0}>
          <div class="mt-1 flex flex-wrap gap-1">
            <For each={props.item.images}>
              {(src, i) => (
                <a href={src} target="_blank" rel="noreferrer">
                  <img src={src} alt={`Attached image ${i() + 1}`} class="h-24 max-w-48 rounded object-cover" />
                </a>
              )}
            </For>
          </div>
        </Show>
        <Show when={props.item.attachments.length > 0}>
          <ul class="mt-1 flex flex-wrap gap-1">
            <For each={props.item.attachments}>
              {(a) => (
                <li class="rounded bg-white/70 px-2 py-0.5 text-xs dark:bg-slate-900/60" title={a.path}>
                  <Icon name={a.kind === "image" ? "image" : "file"} class="mr-1 h-3.5 w-3.5 align-[-2px]" />
                  {a.path.split("/").pop()}
                </li>
              )}
            </For>
          </ul>
        </Show>
      </div>
    </div>
  );
}
