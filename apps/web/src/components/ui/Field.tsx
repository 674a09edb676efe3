/**
 * Labelled form controls: every input, textarea and select gets a visible <label> tied to
 * it by id (createUniqueId), an optional hint, and an error announced through
 * aria-describedby, so forms are usable with a screen reader and checkable by label in tests.
 * Text controls take `onValue` (called on every input event) instead of a raw handler.
 */
import { createUniqueId, For, Show, splitProps, type JSX } from "solid-js";

const CONTROL =
  "w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 placeholder:text-slate-400 disabled:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:disabled:bg-slate-800";

interface FieldShell {
  label: JSX.Element;
  hint?: JSX.Element;
  error?: string | undefined;
  class?: string;
}

function Shell(props: FieldShell & { id: string; children: JSX.Element }) {
  return (
    <div class={`flex flex-col gap-1 ${props.class ?? ""}`}>
      <label for={props.id} class="text-xs font-medium text-slate-600 dark:text-slate-300">
        {props.label}
      </label>
      {props.children}
      <Show when={props.hint !== undefined}>
        <p id={`${props.id}-hint`} class="text-xs text-slate-500 dark:text-slate-400">
          {props.hint}
        </p>
      </Show>
      <Show when={props.error !== undefined}>
        <p id={`${props.id}-error`} role="alert" class="text-xs text-red-600 dark:text-red-400">
          {props.error}
        </p>
      </Show>
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint !== undefined ? `${id}-hint` : "", error !== undefined ? `${id}-error` : ""].filter((s) => s !== "");
  return ids.length === 0 ? undefined : ids.join(" ");
}

const SHELL_KEYS = ["label", "hint", "error", "class"] as const;

export function TextField(props: FieldShell & Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "onInput"> & { onValue?(v: string): void }) {
  const [shell, own, input] = splitProps(props, SHELL_KEYS, ["onValue"]);
  const id = createUniqueId();
  return (
    <Shell id={id} label={shell.label} hint={shell.hint} error={shell.error} class={shell.class}>
      <input
        id={id}
        class={CONTROL}
        aria-invalid={shell.error !== undefined}
        aria-describedby={describedBy(id, shell.hint, shell.error)}
        onInput={(e) => own.onValue?.(e.currentTarget.value)}
        {...input}
      />
    </Shell>
  );
}

export function TextAreaField(props: FieldShell & Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, "onInput"> & { onValue?(v: string): void }) {
  const [shell, own, input] = splitProps(props, SHELL_KEYS, ["onValue"]);
  const id = createUniqueId();
  return (
    <Shell id={id} label={shell.label} hint={shell.hint} error={shell.error} class={shell.class}>
      <textarea
        id={id}
        class={`${CONTROL} font-mono`}
        aria-invalid={shell.error !== undefined}
        aria-describedby={describedBy(id, shell.hint, shell.error)}
        onInput={(e) => own.onValue?.(e.currentTarget.value)}
        {...input}
      />
    </Shell>
  );
}

export interface Option<T extends string> {
  value: T;
  label: string;
}

export function SelectField<T extends string>(
  props: FieldShell & Omit<JSX.SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange"> & { options: readonly Option<T>[]; value: NoInfer<T> | ""; onValue(v: NoInfer<T>): void },
) {
  const [shell, own, select] = splitProps(props, SHELL_KEYS, ["options", "value", "onValue"]);
  const id = createUniqueId();
  return (
    <Shell id={id} label={shell.label} hint={shell.hint} error={shell.error} class={shell.class}>
      <select
        id={id}
        class={CONTROL}
        value={own.value}
        aria-describedby={describedBy(id, shell.hint, shell.error)}
        onChange={(e) => {
          const value = e.currentTarget.value;
          const hit = own.options.find((o) => o.value === value);
          if (hit !== undefined) own.onValue(hit.value);
        }}
        {...select}
      >
        <Show when={own.value === ""}>
          <option value="">—</option>
        </Show>
        <For each={own.options}>{(o) => <option value={o.value} selected={o.value === own.value}>{o.label}</option>}</For>
      </select>
    </Shell>
  );
}

export function CheckboxField(props: { label: JSX.Element; class?: string } & Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "onChange"> & { onChecked?(v: boolean): void }) {
  const [own, input] = splitProps(props, ["label", "class", "onChecked"]);
  const id = createUniqueId();
  return (
    <div class={`flex items-center gap-2 ${own.class ?? ""}`}>
      <input id={id} type="checkbox" class="h-4 w-4 rounded border-slate-300" onChange={(e) => own.onChecked?.(e.currentTarget.checked)} {...input} />
      <label for={id} class="text-sm">
        {own.label}
      </label>
    </div>
  );
}
