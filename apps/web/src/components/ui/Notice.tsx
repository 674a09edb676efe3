/**
 * A one-line (or short) message strip: info, success, warning or error. Errors are
 * `role="alert"` so they are announced when they appear; the rest are `role="status"`.
 */
import type { JSX } from "solid-js";

export type Tone = "info" | "success" | "warning" | "error";

const LOOK: Record<Tone, string> = {
  info: "border-blue-200 bg-blue-50 text-blue-900 dark:border-blue-900 dark:bg-blue-950 dark:text-blue-100",
  success: "border-green-200 bg-green-50 text-green-900 dark:border-green-900 dark:bg-green-950 dark:text-green-100",
  warning: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-100",
  error: "border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100",
};

export function Notice(props: { tone?: Tone; children: JSX.Element; class?: string }) {
  const tone = () => props.tone ?? "info";
  return (
    <div role={tone() === "error" ? "alert" : "status"} class={`rounded-md border px-3 py-2 text-sm ${LOOK[tone()]} ${props.class ?? ""}`}>
      {props.children}
    </div>
  );
}
