/**
 * The app's button: four looks (primary, secondary, danger, ghost) and two sizes, always a
 * real <button> (type="button" unless told otherwise) so keyboard and screen readers get
 * native behaviour; the global focus ring shows where the keyboard is. `ref` lands on the
 * <button> (a menu returns focus to its button).
 */
import { splitProps, type JSX } from "solid-js";

export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";

const LOOK: Record<ButtonVariant, string> = {
  primary: "bg-blue-600 text-white hover:bg-blue-700 disabled:bg-blue-400 dark:disabled:bg-blue-900",
  secondary:
    "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800",
  danger: "bg-red-600 text-white hover:bg-red-700 disabled:bg-red-400",
  ghost: "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
};

export interface ButtonProps extends JSX.ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: "sm" | "md";
}

export function Button(props: ButtonProps) {
  const [own, rest] = splitProps(props, ["variant", "size", "class", "type"]);
  const pad = () => (own.size === "sm" ? "px-2 py-1 text-xs" : "px-3 py-1.5 text-sm");
  return (
    <button
      type={own.type ?? "button"}
      class={`inline-flex items-center justify-center gap-1 rounded-md font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-70 ${pad()} ${LOOK[own.variant ?? "secondary"]} ${own.class ?? ""}`}
      {...rest}
    />
  );
}
