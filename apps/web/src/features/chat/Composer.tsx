/**
 * The composer: a textarea with attachments (paste, drop, or the + menu), a slash-command
 * menu, and the send controls. Controlled by its parent (`draft`), so a recalled steering
 * note or follow-up can be put back into it.
 *
 * The + button opens a small menu (image, file, goal). "Goal…" puts a goal panel on the
 * draft: the message becomes the objective, with an optional budget field; typing
 * `/goal [budget] objective` does the same without the panel. What Send then does is
 * send-plan.ts's decision; here the button only says "Start goal" and refuses a budget of
 * the wrong shape. A goal cannot steer a running task, only queue after it.
 *
 * Keys (composer-keys.ts): Enter sends, Shift+Enter is a new line; while a task runs Enter
 * steers and Alt+Enter queues, and the Stop button interrupts. The + menu is a real menu:
 * arrows move, Escape closes it and returns to the button. When `locked` (an auth error),
 * typing stays possible but nothing can be sent, and the reason is shown.
 */
import { createEffect, createMemo, createSignal, createUniqueId, For, on, Show } from "solid-js";
import { Button } from "../../components/ui/Button";
import { Icon } from "../../components/ui/Icon";
import { isBudget } from "../../lib/stream/goal";
import { toAttachment, type Attachment } from "./attachments";
import { composerKeyAction } from "./composer-keys";
import { parseSlash, slashMenu, type SlashItem } from "./slash-commands";

/** The goal panel's state: the budget exactly as typed (blank: no limit). */
export interface GoalDraft {
  budget: string;
}

export interface Draft {
  text: string;
  attachments: Attachment[];
  /** Set: send the message as a goal. */
  goal?: GoalDraft | undefined;
}

export const EMPTY_DRAFT: Draft = { text: "", attachments: [] };

export type SendKind = "send" | "steer" | "queue";

export interface ComposerProps {
  draft: Draft;
  onDraft(d: Draft): void;
  onSend(kind: SendKind): void;
  onStop?(): void;
  running: boolean;
  busy?: boolean;
  locked?: string | undefined;
  slash: readonly SlashItem[];
  placeholder?: string;
  maxFileMb?: number;
}

const MENU_ITEM = "flex items-center gap-2 px-3 py-1.5 text-left text-sm hover:bg-slate-100 focus:bg-slate-100 dark:hover:bg-slate-800 dark:focus:bg-slate-800";

export function Composer(props: ComposerProps) {
  const inputId = createUniqueId();
  const menuId = createUniqueId();
  const budgetId = createUniqueId();
  const addMenuId = createUniqueId();
  let fileInput!: HTMLInputElement;
  let addButton!: HTMLButtonElement;
  let addMenu: HTMLDivElement | undefined;
  let budgetInput: HTMLInputElement | undefined;
  let focusBudget = false;
  const [adding, setAdding] = createSignal(false);
  const [menuIndex, setMenuIndex] = createSignal(0);
  const [menuDismissed, setMenuDismissed] = createSignal<string | undefined>(undefined);
  const [fileError, setFileError] = createSignal<string | undefined>(undefined);
  const [dragging, setDragging] = createSignal(false);

  const draft = () => props.draft;
  const menu = createMemo(() => (menuDismissed() === draft().text ? [] : slashMenu(draft().text, props.slash)));
  const menuOpen = () => menu().length > 0;
  const empty = () => draft().text.trim() === "" && draft().attachments.length === 0;
  const budgetText = () => draft().goal?.budget.trim() ?? "";
  const budgetError = () => (budgetText() !== "" && !isBudget(budgetText()) ? "The budget is a token count such as 500k, 2m or 120000 (empty: no limit)." : undefined);
  const asGoal = () => draft().goal !== undefined || parseSlash(draft().text.trim(), props.slash)?.kind === "goal";
  const canSend = () => !empty() && props.locked === undefined && props.busy !== true && budgetError() === undefined;

  createEffect(
    on(adding, (open) => {
      if (open) addMenu?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    }),
  );

  createEffect(
    on(
      () => draft().goal !== undefined,
      (hasGoal) => {
        if (hasGoal && focusBudget) {
          focusBudget = false;
          budgetInput?.focus();
        }
      },
    ),
  );

  const closeAdd = (refocus: boolean) => {
    setAdding(false);
    if (refocus) addButton.focus();
  };

  const pickFiles = (accept: string) => {
    closeAdd(false);
    fileInput.accept = accept;
    fileInput.click();
  };

  const startGoal = () => {
    closeAdd(false);
    if (draft().goal === undefined) {
      focusBudget = true;
      props.onDraft({ ...draft(), goal: { budget: "" } });
    } else budgetInput?.focus();
  };

  const onAddKeyDown = (e: KeyboardEvent) => {
    const items = [...(addMenu?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = items.findIndex((el) => el === document.activeElement);
    const move = (to: number) => {
      e.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    };
    if (e.key === "ArrowDown") move(at + 1);
    else if (e.key === "ArrowUp") move(at - 1);
    else if (e.key === "Home") move(0);
    else if (e.key === "End") move(items.length - 1);
    else if (e.key === "Escape") {
      e.preventDefault();
      closeAdd(true);
    } else if (e.key === "Tab") closeAdd(false);
  };

  const onAddBlur = (e: FocusEvent) => {
    const next = e.relatedTarget;
    if (next instanceof Node && (addMenu?.contains(next) === true || addButton.contains(next))) return;
    setAdding(false);
  };

  const addFiles = async (files: readonly File[]) => {
    setFileError(undefined);
    const added: Attachment[] = [];
    for (const f of files) {
      try {
        added.push(await toAttachment(f, props.maxFileMb));
      } catch (e) {
        setFileError(e instanceof Error ? e.message : String(e));
      }
    }
    if (added.length > 0) props.onDraft({ ...draft(), attachments: [...draft().attachments, ...added] });
  };

  const pick = (item: SlashItem | undefined) => {
    if (item === undefined) return;
    const text = `/${item.name} `;
    props.onDraft({ ...draft(), text });
    setMenuDismissed(text);
    setMenuIndex(0);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const action = composerKeyAction(
      { key: e.key, shiftKey: e.shiftKey, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey, isComposing: e.isComposing },
      { running: props.running, menuOpen: menuOpen() },
    );
    const count = menu().length;
    switch (action) {
      case "menu-next":
        e.preventDefault();
        setMenuIndex((i) => (i + 1) % count);
        return;
      case "menu-prev":
        e.preventDefault();
        setMenuIndex((i) => (i - 1 + count) % count);
        return;
      case "menu-pick":
        e.preventDefault();
        pick(menu()[Math.min(menuIndex(), count - 1)]);
        return;
      case "menu-close":
        e.preventDefault();
        setMenuDismissed(draft().text);
        return;
      case "send":
      case "steer":
      case "queue":
        e.preventDefault();
        if (canSend()) props.onSend(action === "steer" && asGoal() ? "queue" : action);
        return;
      default:
        return;
    }
  };

  const onPaste = (e: ClipboardEvent) => {
    const files = [...(e.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    e.preventDefault();
    void addFiles(files);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length > 0) void addFiles(files);
  };

  const activeOption = () => (menuOpen() ? `${menuId}-opt-${Math.min(menuIndex(), menu().length - 1)}` : undefined);

  return (
    <div
      class={`relative rounded-lg border bg-white shadow-sm focus-within:ring-2 focus-within:ring-blue-500 dark:bg-slate-900 ${dragging() ? "border-blue-500 ring-2 ring-blue-300" : "border-slate-300 dark:border-slate-700"}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <Show when={menuOpen()}>
        <ul id={menuId} role="listbox" aria-label="Commands" class="absolute bottom-full left-2 z-20 mb-1 max-h-64 w-72 max-w-[calc(100%-1rem)] overflow-auto rounded-md border border-slate-200 bg-white py-1 shadow-lg dark:border-slate-700 dark:bg-slate-900">
          <For each={menu()}>
            {(item, i) => (
              <li
                id={`${menuId}-opt-${i()}`}
                role="option"
                aria-selected={i() === menuIndex()}
                class={`cursor-pointer px-3 py-1.5 text-sm ${i() === menuIndex() ? "bg-blue-50 dark:bg-slate-800" : ""}`}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(item);
                }}
              >
                <span class="font-mono">/{item.name}</span>
                <span class="ml-2 text-xs text-slate-500">{item.description}</span>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <Show when={draft().goal}>
        {(goal) => (
          <div role="group" aria-label="Goal" class="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-t-lg border-b border-indigo-200 bg-indigo-50 px-3 py-1.5 text-xs dark:border-indigo-900 dark:bg-indigo-950">
            <span class="font-semibold text-indigo-800 dark:text-indigo-200">Goal</span>
            <span class="min-w-0 flex-1 text-slate-600 dark:text-slate-300">The message is the objective: the agent works in rounds until it is done.</span>
            <label for={budgetId} class="flex items-center gap-1">
              <span>Budget</span>
              <input
                ref={budgetInput}
                id={budgetId}
                value={goal().budget}
                onInput={(e) => props.onDraft({ ...draft(), goal: { budget: e.currentTarget.value } })}
                onKeyDown={(e) => {
                  if (e.key !== "Enter" || e.isComposing) return;
                  e.preventDefault();
                  if (canSend()) props.onSend(props.running ? "queue" : "send");
                }}
                placeholder="no limit"
                size={9}
                aria-invalid={budgetError() !== undefined}
                aria-describedby={budgetError() !== undefined ? `${budgetId}-error` : undefined}
                class="rounded border border-slate-300 bg-white px-1.5 py-0.5 dark:border-slate-600 dark:bg-slate-900"
              />
            </label>
            <button type="button" aria-label="Remove goal" class="rounded px-1 hover:bg-indigo-100 dark:hover:bg-indigo-900" onClick={() => props.onDraft({ ...draft(), goal: undefined })}>
              ×
            </button>
            <Show when={budgetError()}>
              {(error) => (
                <p id={`${budgetId}-error`} role="alert" class="basis-full text-red-600 dark:text-red-400">
                  {error()}
                </p>
              )}
            </Show>
          </div>
        )}
      </Show>
      <Show when={draft().attachments.length > 0}>
        <ul aria-label="Attachments" class="flex flex-wrap gap-2 border-b border-slate-200 p-2 dark:border-slate-800">
          <For each={draft().attachments}>
            {(a) => (
              <li class="flex items-center gap-1 rounded border border-slate-200 bg-slate-50 px-1.5 py-1 text-xs dark:border-slate-700 dark:bg-slate-800">
                <Show when={a.preview} fallback={<Icon name="file" class="h-5 w-5 text-slate-500" />}>
                  {(preview) => <img src={preview()} alt="" class="h-8 w-8 rounded object-cover" />}
                </Show>
                <span class="max-w-40 truncate">{a.name}</span>
                <button
                  type="button"
                  aria-label={`Remove ${a.name}`}
                  class="rounded px-1 hover:bg-slate-200 dark:hover:bg-slate-700"
                  onClick={() => props.onDraft({ ...draft(), attachments: draft().attachments.filter((x) => x.id !== a.id) })}
                >
                  ×
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <label for={inputId} class="sr-only">
        Message
      </label>
      <textarea
        id={inputId}
        value={draft().text}
        onInput={(e) => {
          props.onDraft({ ...draft(), text: e.currentTarget.value });
          setMenuIndex(0);
        }}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        rows={3}
        placeholder={props.placeholder ?? (props.running ? "Steer the running task (Enter), or queue a follow-up (Alt+Enter)…" : "Message the agent — Enter to send, Shift+Enter for a new line, / for commands")}
        role="combobox"
        aria-expanded={menuOpen()}
        aria-controls={menuOpen() ? menuId : undefined}
        aria-activedescendant={activeOption()}
        aria-autocomplete="list"
        class="block max-h-72 min-h-[4.5rem] w-full resize-y bg-transparent px-3 py-2 text-sm outline-none focus-visible:outline-none"
      />
      <Show when={props.locked ?? fileError()}>
        {(text) => (
          <p role="alert" class="px-3 pb-1 text-xs text-red-600 dark:text-red-400">
            {text()}
          </p>
        )}
      </Show>
      <div class="flex items-center gap-2 px-2 pb-2">
        <input
          ref={fileInput}
          type="file"
          multiple
          class="hidden"
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => {
            const files = [...(e.currentTarget.files ?? [])];
            e.currentTarget.value = "";
            void addFiles(files);
          }}
        />
        <div class="relative">
          <Button
            ref={addButton}
            variant="ghost"
            size="sm"
            aria-label="Add an image, a file or a goal"
            aria-haspopup="menu"
            aria-expanded={adding()}
            aria-controls={adding() ? addMenuId : undefined}
            onClick={() => setAdding((a) => !a)}
          >
            <Icon name="plus" class="h-5 w-5" />
          </Button>
          <Show when={adding()}>
            <div
              ref={addMenu}
              id={addMenuId}
              role="menu"
              aria-label="Add"
              onKeyDown={onAddKeyDown}
              onFocusOut={onAddBlur}
              // Keep focus where it is on a click, so browsers that do not focus clicked buttons never blur the menu away.
              onMouseDown={(e) => e.preventDefault()}
              class="absolute bottom-full left-0 z-20 mb-1 flex w-44 flex-col rounded-md border border-slate-200 bg-white py-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
            >
              <button type="button" role="menuitem" tabIndex={-1} class={MENU_ITEM} onClick={() => pickFiles("image/*")}>
                <Icon name="image" class="h-4 w-4" /> Image…
              </button>
              <button type="button" role="menuitem" tabIndex={-1} class={MENU_ITEM} onClick={() => pickFiles("")}>
                <Icon name="file" class="h-4 w-4" /> File…
              </button>
              <button type="button" role="menuitem" tabIndex={-1} class={MENU_ITEM} onClick={startGoal}>
                <Icon name="goal" class="h-4 w-4" /> Goal…
              </button>
            </div>
          </Show>
        </div>
        <span class="flex-1" />
        <Show
          when={props.running}
          fallback={
            <Button variant="primary" size="sm" disabled={!canSend()} onClick={() => props.onSend("send")}>
              {asGoal() ? "Start goal" : "Send"}
            </Button>
          }
        >
          <Show when={props.onStop}>
            {(stop) => (
              <Button variant="danger" size="sm" onClick={() => stop()()}>
                Stop
              </Button>
            )}
          </Show>
          <Button size="sm" disabled={!canSend()} onClick={() => props.onSend("queue")} title="Send after the current task (Alt+Enter)">
            {asGoal() ? "Queue goal" : "Queue"}
          </Button>
          <Button
            variant="primary"
            size="sm"
            disabled={!canSend() || draft().attachments.length > 0 || asGoal()}
            onClick={() => props.onSend("steer")}
            title={asGoal() ? "A goal can only be queued" : "Tell the running task now (Enter)"}
          >
            Steer
          </Button>
        </Show>
      </div>
    </div>
  );
}
