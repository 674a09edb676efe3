/**
 * Labelled form controls: every input, textarea and select gets a visible <label> tied to
 * it by id (useId), an optional hint, and an error announced through aria-describedby, so
 * forms are usable with a screen reader and checkable by label in tests.
 */
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";

const CONTROL =
  "w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 placeholder:text-slate-400 disabled:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:disabled:bg-slate-800";

interface FieldShell {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  className?: string;
}

function Shell({ id, label, hint, error, className = "", children }: FieldShell & { id: string; children: ReactNode }) {
  return (
    <div className={`flex flex-col gap-1 ${className}`}>
      <label htmlFor={id} className="text-xs font-medium text-slate-600 dark:text-slate-300">
        {label}
      </label>
      {children}
      {hint !== undefined && (
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      )}
      {error !== undefined && (
        <p id={`${id}-error`} role="alert" className="text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint !== undefined ? `${id}-hint` : "", error !== undefined ? `${id}-error` : ""].filter((s) => s !== "");
  return ids.length === 0 ? undefined : ids.join(" ");
}

export function TextField({ label, hint, error, className, ...input }: FieldShell & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <Shell id={id} label={label} hint={hint} error={error} className={className}>
      <input id={id} className={CONTROL} aria-invalid={error !== undefined} aria-describedby={describedBy(id, hint, error)} {...input} />
    </Shell>
  );
}

export function TextAreaField({ label, hint, error, className, ...input }: FieldShell & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <Shell id={id} label={label} hint={hint} error={error} className={className}>
      <textarea id={id} className={`${CONTROL} font-mono`} aria-invalid={error !== undefined} aria-describedby={describedBy(id, hint, error)} {...input} />
    </Shell>
  );
}

export interface Option<T extends string> {
  value: T;
  label: string;
}

export function SelectField<T extends string>({
  label,
  hint,
  error,
  className,
  options,
  value,
  onValue,
  ...select
}: FieldShell & Omit<SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange"> & { options: readonly Option<T>[]; value: NoInfer<T> | ""; onValue(v: NoInfer<T>): void }) {
  const id = useId();
  return (
    <Shell id={id} label={label} hint={hint} error={error} className={className}>
      <select
        id={id}
        className={CONTROL}
        value={value}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(e) => {
          const hit = options.find((o) => o.value === e.target.value);
          if (hit !== undefined) onValue(hit.value);
        }}
        {...select}
      >
        {value === "" && <option value="">—</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Shell>
  );
}

export function CheckboxField({ label, className = "", ...input }: { label: ReactNode; className?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className={`flex items-center gap-2 ${className}`}>
      <input id={id} type="checkbox" className="h-4 w-4 rounded border-slate-300" {...input} />
      <label htmlFor={id} className="text-sm">
        {label}
      </label>
    </div>
  );
}
