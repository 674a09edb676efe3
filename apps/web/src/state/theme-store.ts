/**
 * The colour theme: light, dark, or follow the system. Kept in localStorage (so it applies
 * before the first paint, without a round trip) and applied as the `dark` class on <html>,
 * which Tailwind's `dark:` variant keys on (src/styles.css). A module-level signal: the
 * settings page reads `theme()` and calls `setTheme`.
 */
import { createSignal } from "solid-js";

export type Theme = "light" | "dark" | "system";
const KEY = "penguin.theme";

function stored(): Theme {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

function systemDark(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
}

export function applyTheme(theme: Theme): void {
  const dark = theme === "dark" || (theme === "system" && systemDark());
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}

const [theme, setThemeSignal] = createSignal<Theme>(stored());
export { theme };

export function setTheme(next: Theme): void {
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyTheme(next);
  setThemeSignal(next);
}

/** Applies the stored theme now and follows system changes while the theme is `system`. */
export function bootTheme(): void {
  applyTheme(theme());
  if (typeof matchMedia !== "function") return;
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    if (theme() === "system") applyTheme("system");
  });
}
