/**
 * The signed-in frame: a top bar with the pages, the project switcher and the user, and
 * the routed page below filling the rest of the screen. The bar scrolls sideways on narrow
 * screens instead of wrapping, so a 390 px phone keeps one line of navigation.
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

const LINK = "block border-b-2 px-2.5 py-2.5 text-sm whitespace-nowrap";

export function AppShell(props: { children?: JSX.Element }) {
  return (
    <div class="flex h-full flex-col">
      <header class="flex items-center gap-2 border-b border-slate-200 bg-white px-2 dark:border-slate-800 dark:bg-slate-950">
        <span class="flex items-center gap-1 pr-1 text-sm font-semibold text-slate-800 dark:text-slate-100">
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
        <button type="button" onClick={() => void signOut()} class="rounded px-2 py-1 text-xs whitespace-nowrap text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800">
          Sign out
        </button>
      </header>
      <SandboxNotice />
      <div class="min-h-0 flex-1">{props.children}</div>
    </div>
  );
}
