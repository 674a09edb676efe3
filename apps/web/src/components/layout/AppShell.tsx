/**
 * The signed-in frame: a top bar with the pages, the project switcher and the user, and
 * the routed page below filling the rest of the screen. On a phone (below Tailwind's `sm`, 640
 * px) the links are tighter and smaller and "Sign out" is an icon, so every page fits one line
 * at 375 px; the bar would scroll sideways rather than wrap if a narrower screen needed it.
 */
import { For, Show, type JSX } from "solid-js";
import { A } from "@solidjs/router";
import { auth, signOut } from "../../state/auth-store";
import { project, selectProject } from "../../state/project-store";
import { Icon } from "../ui/Icon";
import { SandboxNotice } from "./SandboxNotice";

const PAGES = [
  { to: "/chat", label: "Chat" },
  { to: "/models", label: "Models" },
  { to: "/agents", label: "Agents" },
  { to: "/usage", label: "Usage" },
  { to: "/traces", label: "Traces" },
  { to: "/settings", label: "Settings" },
];

const LINK = "block border-b-2 px-1 py-2.5 text-xs whitespace-nowrap sm:px-2.5 sm:text-sm";

export function AppShell(props: { children?: JSX.Element }) {
  return (
    <div class="flex h-full flex-col">
      <header class="flex items-center gap-1 border-b border-slate-200 bg-white px-1 sm:gap-2 sm:px-2 dark:border-slate-800 dark:bg-slate-950">
        <span class="flex shrink-0 items-center gap-1 text-sm font-semibold text-slate-800 dark:text-slate-100">
          <Icon name="penguin" class="h-5 w-5" />
          <span class="hidden sm:inline">Penguin</span>
        </span>
        <nav aria-label="Main" class="min-w-0 flex-1 overflow-x-auto">
          <ul class="flex">
            <For each={PAGES}>
              {(p) => (
                <li>
                  <A
                    href={p.to}
                    class={LINK}
                    activeClass="border-blue-600 font-medium text-blue-700 dark:text-blue-300"
                    inactiveClass="border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
                  >
                    {p.label}
                  </A>
                </li>
              )}
            </For>
          </ul>
        </nav>
        <Show when={project.projects.length > 1}>
          <label class="hidden items-center gap-1 text-xs sm:flex">
            <span class="text-slate-500">Project</span>
            <select
              value={project.projectId ?? ""}
              onChange={(e) => void selectProject(e.currentTarget.value)}
              class="max-w-40 rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              <For each={project.projects}>
                {(p) => (
                  <option value={p.projectId} selected={p.projectId === project.projectId}>
                    {p.name ?? p.projectId}
                  </option>
                )}
              </For>
            </select>
          </label>
        </Show>
        <span class="hidden text-xs text-slate-500 md:inline">{auth.me?.userId}</span>
        <button
          type="button"
          onClick={() => void signOut()}
          aria-label="Sign out"
          title="Sign out"
          class="shrink-0 rounded px-1 py-1 text-xs whitespace-nowrap text-slate-600 hover:bg-slate-100 sm:px-2 dark:text-slate-300 dark:hover:bg-slate-800"
        >
          <Icon name="signout" class="h-4 w-4 sm:hidden" />
          <span class="hidden sm:inline">Sign out</span>
        </button>
      </header>
      <SandboxNotice />
      <div class="min-h-0 flex-1">{props.children}</div>
    </div>
  );
}
