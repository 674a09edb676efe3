/**
 * Accessible tabs (WAI-ARIA tablist): arrow keys, Home and End move between tabs with a
 * roving tabindex; the selected panel is labelled by its tab. Controlled: the parent owns
 * the selection (so it can live in the URL).
 */
import { createUniqueId, For, type JSX } from "solid-js";

export interface TabDef<T extends string> {
  id: T;
  label: string;
}

export function Tabs<T extends string>(props: { tabs: readonly TabDef<T>[]; value: NoInfer<T>; onChange(id: NoInfer<T>): void; label: string; children: JSX.Element }) {
  const base = createUniqueId();
  const buttons: HTMLButtonElement[] = [];
  const onKey = (e: KeyboardEvent, index: number) => {
    const count = props.tabs.length;
    let next = index;
    if (e.key === "ArrowRight") next = (index + 1) % count;
    else if (e.key === "ArrowLeft") next = (index - 1 + count) % count;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = count - 1;
    else return;
    e.preventDefault();
    const tab = props.tabs[next];
    if (tab === undefined) return;
    props.onChange(tab.id);
    buttons[next]?.focus();
  };
  return (
    <div class="flex min-h-0 flex-1 flex-col">
      <div role="tablist" aria-label={props.label} class="flex gap-1 overflow-x-auto border-b border-slate-200 dark:border-slate-800">
        <For each={props.tabs}>
          {(t, i) => {
            const selected = () => t.id === props.value;
            return (
              <button
                ref={(el) => (buttons[i()] = el)}
                type="button"
                role="tab"
                id={`${base}-tab-${t.id}`}
                aria-selected={selected()}
                aria-controls={`${base}-panel`}
                tabIndex={selected() ? 0 : -1}
                onClick={() => props.onChange(t.id)}
                onKeyDown={(e) => onKey(e, i())}
                class={`whitespace-nowrap border-b-2 px-3 py-2 text-sm ${selected() ? "border-blue-600 font-medium text-blue-700 dark:text-blue-300" : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"}`}
              >
                {t.label}
              </button>
            );
          }}
        </For>
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${props.value}`} class="min-h-0 flex-1 overflow-auto pt-4">
        {props.children}
      </div>
    </div>
  );
}
