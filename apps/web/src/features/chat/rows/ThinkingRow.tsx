/**
 * The model's reasoning, collapsed by default into one line (open while it streams, so the
 * user sees it is thinking). A disclosure button with aria-expanded toggles it.
 */
import { createSignal, Show } from "solid-js";
import type { ThinkingItem } from "../../../lib/stream/view-model";

export function ThinkingRow(props: { item: ThinkingItem }) {
  const [open, setOpen] = createSignal(false);
  const shown = () => open() || props.item.streaming;
  const firstLine = () => props.item.text.trim().split("\n")[0] ?? "";
  return (
    <div class="text-sm text-slate-600 dark:text-slate-400">
      <button type="button" aria-expanded={shown()} onClick={() => setOpen(!open())} class="flex max-w-full items-center gap-1 rounded px-1 text-left text-xs hover:bg-slate-100 dark:hover:bg-slate-800">
        <span aria-hidden="true">{shown() ? "▾" : "▸"}</span>
        <span class="font-medium">{props.item.streaming ? "Thinking…" : "Thought"}</span>
        <Show when={!shown()}>
          <span class="truncate italic">{firstLine()}</span>
        </Show>
      </button>
      <Show when={shown()}>
        <div class="mt-1 border-l-2 border-slate-200 pl-3 whitespace-pre-wrap italic dark:border-slate-700">
          <Show when={props.item.dataUrl} fallback={props.item.text}>
            {(url) => <img src={url()} alt="Inline thinking data" class="max-h-64" />}
          </Show>
        </div>
      </Show>
    </div>
  );
}
